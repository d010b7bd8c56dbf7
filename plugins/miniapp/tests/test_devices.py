"""A device removed through the mini app: addons' deletion in the (fake) panel, its texts."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_panel.testing import FakePanel
from subsvc_panel_sync.testing import FAST_SYNC

from subsvc.testing import set_env


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["miniapp", "panel_sync"]


@pytest.fixture
def subsvc_settings_overrides(monkeypatch: pytest.MonkeyPatch, fake_panel: FakePanel) -> dict[str, Any]:
    set_env(monkeypatch, {**FAST_SYNC, **fake_panel.env(), "PANEL_MAX_RETRIES": "0"})
    return {"BOT_TOKEN": "424242:miniapp-test-bot-token"}


async def test_a_device_is_removed_in_the_panel(miniapp, make_user, make_subscription, fake_panel):
    me = await make_user()
    subscription = await make_subscription(me, device_limit=3)
    account = fake_panel.add_user(
        f"user_{me.messenger_id}_{subscription.short_id}", telegramId=me.messenger_id
    )
    fake_panel.add_device(account["uuid"], "hw-a")
    removed = await miniapp("/devices/remove", me, hwid="hw-a")
    assert (removed.status_code, removed.json()) == (
        200,
        {"success": True, "message": "Device deleted successfully"},
    )
    again = await miniapp("/devices/remove", me, hwid="hw-a")
    assert (again.status_code, again.json()) == (404, {"detail": "Device not found"})


async def test_without_a_subscription_it_is_404(miniapp, make_user):
    answer = await miniapp("/devices/remove", await make_user(), hwid="hw-a")
    assert (answer.status_code, answer.json()) == (404, {"detail": "No subscription found"})
