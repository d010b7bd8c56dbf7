"""CORS: exact origins with credentials; `*` without."""

from __future__ import annotations

import pytest


@pytest.fixture
def subsvc_settings_overrides():
    return {"CORS_ORIGINS": ["https://admin.example"]}


async def test_preflight_from_an_allowed_origin(anon_client):
    r = await anon_client.options(
        "/tokens",
        headers={
            "Origin": "https://admin.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "X-API-Key",
        },
    )
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == "https://admin.example"
    assert r.headers["access-control-allow-credentials"] == "true"


async def test_other_origins_get_no_cors_headers(anon_client):
    r = await anon_client.get("/health", headers={"Origin": "https://evil.example"})
    assert r.status_code == 200
    assert "access-control-allow-origin" not in r.headers
