"""Administrators' direct changes (``admin_changes``), through their one HTTP caller, the
cabinet's ``POST /cabinet/admin/users/{id}/subscription``: what its own tests leave open
(events, the panel mark, the edges of each rule)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from subsvc_subscriptions.models import Subscription, TrafficPurchase

from subsvc.db import Database, utcnow

BASE = "/cabinet/admin/users"


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["subscriptions", "cabinet_admin_users"]


async def _act(admin, user, **body):
    return await admin.post(f"{BASE}/{user.id}/subscription", json=body)


async def _changes(outbox) -> list[dict[str, Any]]:
    return [payload for event, payload in await outbox() if event == "subscription.changed"]


def _close(a, b, seconds: float = 30) -> bool:
    return abs((a - b).total_seconds()) <= seconds


async def test_cancel_ends_now_and_publishes_disabled(admin, insert_user, make_subscription, reload, outbox):
    user = await insert_user()
    subscription = await make_subscription(user, end_in=timedelta(days=10))
    assert (await _act(admin, user, action="cancel")).status_code == 200
    row = await reload(Subscription, subscription.id)
    assert (row.status, row.panel_sync_state) == ("expired", "pending")
    assert _close(row.end_date, utcnow())
    [change] = await _changes(outbox)
    assert (change["change"], change["status"], change["subscription_id"]) == ("disabled", "expired", row.id)


async def test_activate_keeps_an_end_still_ahead(admin, insert_user, make_subscription, reload, outbox):
    user = await insert_user()
    subscription = await make_subscription(user, status="disabled", end_in=timedelta(days=10))
    assert (await _act(admin, user, action="activate")).status_code == 200
    row = await reload(Subscription, subscription.id)
    assert (row.status, row.end_date, row.panel_sync_state) == ("active", subscription.end_date, "pending")
    assert [c["change"] for c in await _changes(outbox)] == ["extended"]


async def test_set_traffic_leaves_what_is_not_given(admin, insert_user, make_subscription, reload, outbox):
    user = await insert_user()
    subscription = await make_subscription(user, traffic_limit_gb=80)
    assert (await _act(admin, user, action="set_traffic", traffic_used_gb=3.5)).status_code == 200
    row = await reload(Subscription, subscription.id)
    assert (row.traffic_limit_gb, row.traffic_used_gb, row.panel_sync_state) == (80, 3.5, "pending")
    [change] = await _changes(outbox)
    assert (change["change"], change["traffic_limit_gb"]) == ("traffic", 80)


async def test_autopay_is_no_panel_change(admin, insert_user, make_subscription, reload, outbox):
    user = await insert_user()
    subscription = await make_subscription(user)
    assert (await _act(admin, user, action="toggle_autopay", autopay_enabled=True)).status_code == 200
    row = await reload(Subscription, subscription.id)
    assert (row.autopay_enabled, row.panel_sync_state) == (True, "synced")
    assert row.updated_at > subscription.updated_at
    assert await _changes(outbox) == []


async def test_removing_a_purchase_never_goes_below_zero(
    admin, insert_user, make_subscription, db: Database, reload, outbox
):
    user = await insert_user()
    subscription = await make_subscription(user, traffic_limit_gb=10, purchased_traffic_gb=5)
    other = await make_subscription(await insert_user())
    async with db.session() as session:
        expires = utcnow() + timedelta(days=30)
        mine = TrafficPurchase(subscription_id=subscription.id, traffic_gb=50, expires_at=expires)
        theirs = TrafficPurchase(subscription_id=other.id, traffic_gb=7, expires_at=expires)
        session.add_all([mine, theirs])
        await session.commit()
        mine_id, theirs_id = mine.id, theirs.id
    foreign = await _act(admin, user, action="remove_traffic", traffic_purchase_id=theirs_id)
    assert (foreign.status_code, foreign.json()) == (404, {"detail": "Traffic purchase not found"})
    assert await reload(TrafficPurchase, theirs_id) is not None
    body = (await _act(admin, user, action="remove_traffic", traffic_purchase_id=mine_id)).json()
    assert body["message"] == "Removed 50 GB traffic package"
    row = await reload(Subscription, subscription.id)
    assert (row.traffic_limit_gb, row.purchased_traffic_gb, row.panel_sync_state) == (0, 0, "pending")
    assert await reload(TrafficPurchase, mine_id) is None
    [change] = await _changes(outbox)
    assert (change["change"], change["traffic_limit_gb"]) == ("traffic", 0)
