"""Without a bot token nothing can be sent: a broadcast is refused, not recorded."""

from __future__ import annotations

from typing import Any

import pytest

URL = "/broadcasts"


@pytest.fixture
def subsvc_settings_overrides() -> dict[str, Any]:
    return {}  # no BOT_TOKEN


async def test_without_a_bot_token_nothing_is_recorded(client, users):
    await users(1)
    refused = await client.post(URL, json={"target": "all", "message_text": "x"})
    assert refused.status_code == 503
    assert refused.json() == {
        "detail": "The messenger bot is not configured (BOT_TOKEN): broadcasts cannot be sent"
    }
    assert (await client.get(URL)).json()["total"] == 0
