"""`DELETE /cabinet/subscriptions/{id}` with the panel integration installed: the removed
subscription's panel user is disabled by panel_sync's queue after the row is gone (the cabinet
never calls the panel)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from subsvc_panel.testing import FakePanel
from subsvc_panel_sync.testing import FAST_SYNC
from subsvc_subscriptions.models import Subscription

from subsvc.db import utcnow

from .test_subscription import set_row, subscribe


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["cabinet", "panel_sync"]


@pytest.fixture
def subsvc_settings_overrides(monkeypatch: pytest.MonkeyPatch, fake_panel: FakePanel) -> dict[str, Any]:
    for name, value in {**FAST_SYNC, **fake_panel.env()}.items():
        monkeypatch.setenv(name, str(value))
    return {}


async def _panel_uuid(client, subscription_id: int) -> str | None:
    found = (await client.get(f"/panel/sync/subscriptions/{subscription_id}")).json()
    return found["panel_uuid"] if found.get("panel_sync_status") == "synced" else None


async def test_the_panel_user_of_a_deleted_subscription_is_disabled(
    client, db, rows, make_user, cabinet, fake_panel, wait_for
):
    user = await make_user()
    subscription_id = await subscribe(client, user["id"])
    uuid = await wait_for(lambda: _panel_uuid(client, subscription_id))
    assert fake_panel.users[uuid]["status"] == "ACTIVE"
    async with cabinet(user["id"]) as http:
        refused = await http.delete(f"/cabinet/subscriptions/{subscription_id}")
        assert refused.status_code == 400  # still active
        await set_row(db, subscription_id, end_date=utcnow() - timedelta(days=1))  # it has ended
        deleted = await http.delete(f"/cabinet/subscriptions/{subscription_id}")
    assert deleted.status_code == 200
    assert await rows(Subscription) == []
    await wait_for(lambda: fake_panel.users[uuid]["status"] == "DISABLED")
