"""Subscription changes reach the VPN panel through the panel sync queue (panel_sync), with
the loopback fake panel: a bulk grant creates the panel users, a bulk extension moves their
expiry there too."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from subsvc_panel.testing import FakePanel
from subsvc_panel_sync.testing import FAST_SYNC

from .conftest import execute

PLUGINS = ["bulk_actions", "panel_sync", "rbac"]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


@pytest.fixture
def panel(fake_panel: FakePanel, monkeypatch: pytest.MonkeyPatch) -> FakePanel:
    for name, value in {**FAST_SYNC, **fake_panel.env()}.items():
        monkeypatch.setenv(name, value)
    return fake_panel


@pytest.fixture
def subsvc_settings_overrides(panel: FakePanel) -> dict[str, Any]:
    return {}


def _expiry(user: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(user["expireAt"].replace("Z", "+00:00"))


async def test_grant_then_extend_reach_the_panel(admin, users, make_tariff, panel, wait_for):
    ids = await users(3)
    tariff = await make_tariff(name="Pro", device_limit=2)
    chats = [600_000_000 + i for i in range(3)]
    granted = await execute(
        admin, "grant_subscription", user_ids=ids, params={"tariff_id": tariff.id, "days": 30}
    )
    assert granted.json()["success_count"] == 3
    await wait_for(lambda: all(panel.users_of_messenger_id(chat) for chat in chats), seconds=30)
    before = {chat: _expiry(panel.users_of_messenger_id(chat)[0]) for chat in chats}
    extended = await execute(admin, "extend_subscription", user_ids=ids, params={"days": 10})
    assert extended.json()["success_count"] == 3

    def moved() -> bool:
        return all(
            (_expiry(panel.users_of_messenger_id(chat)[0]) - before[chat]).days == 10 for chat in chats
        )

    await wait_for(moved, seconds=30)
