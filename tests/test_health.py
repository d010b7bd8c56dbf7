"""``GET /health/unified``: the components at a glance, without credentials."""

from __future__ import annotations

import pytest


async def test_unified_health_needs_no_credentials_and_names_no_secret(anon_client):
    r = await anon_client.get("/health/unified")
    assert r.status_code == 200
    assert r.json() == {
        "status": "ok",
        "api_version": "1.0.0",
        "bot_version": None,
        "web_api_enabled": True,
        "payment_webhooks": {"probe": {"configured": True, "path": "/probe/payments"}},  # its hook
        "messenger_webhook": {"configured": False, "path": None},
        "panel_webhook": {"configured": False, "path": None},
    }


@pytest.mark.parametrize("subsvc_settings_overrides", [{"BOT_TOKEN": "123:secret-token"}])
async def test_the_messenger_counts_as_configured_with_a_bot_token(anon_client):
    r = await anon_client.get("/health/unified")
    assert r.json()["messenger_webhook"] == {"configured": True, "path": None}
    assert "secret-token" not in r.text
