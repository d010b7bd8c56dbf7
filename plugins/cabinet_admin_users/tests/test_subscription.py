"""`POST /cabinet/admin/users/{id}/subscription`: every action."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select
from subsvc_subscriptions.models import Subscription, TrafficPurchase
from subsvc_users.models import User

from subsvc.db import utcnow

BASE = "/cabinet/admin/users"


def _at(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


async def _act(admin, user, **body):
    return await admin.post(f"{BASE}/{user.id}/subscription", json=body)


async def _changes(outbox):
    return [payload for event, payload in await outbox() if event == "subscription.changed"]


async def test_create_uses_the_subscriptions_service(admin, make_user, reload, outbox):
    user = await make_user()
    response = await _act(admin, user, action="create", days=10, traffic_limit_gb=70, device_limit=3)
    assert response.status_code == 200
    body = response.json()
    assert (body["success"], body["message"]) == (True, "Subscription created for 10 days")
    sub = body["subscription"]
    assert (sub["status"], sub["is_trial"], sub["traffic_limit_gb"], sub["device_limit"]) == (
        "active",
        False,
        70,
        3,
    )
    assert sub["days_remaining"] == 9 and sub["is_active"] is True
    assert (await reload(User, user.id)).has_had_paid_subscription is True
    assert [(c["change"], c["subscription_id"]) for c in await _changes(outbox)] == [("created", sub["id"])]
    again = await _act(admin, user, action="create")
    assert (again.status_code, again.json()) == (400, {"detail": "User already has a subscription"})


async def test_create_defaults_to_30_days_and_a_trial_keeps_its_flag(admin, make_user):
    user = await make_user()
    sub = (await _act(admin, user, action="create", is_trial=True)).json()["subscription"]
    assert sub["is_trial"] is True
    assert _at(sub["end_date"]) - _at(sub["start_date"]) == timedelta(days=30)


async def test_extend_and_shorten(admin, make_user, make_subscription, outbox):
    user = await make_user()
    subscription = await make_subscription(user, days=5)
    extended = (await _act(admin, user, action="extend", days=10)).json()
    assert extended["message"] == "Subscription extended by 10 days"
    assert _at(extended["subscription"]["end_date"]) == subscription.end_date + timedelta(days=10)
    shortened = (await _act(admin, user, action="shorten", days=3)).json()
    assert _at(shortened["subscription"]["end_date"]) == subscription.end_date + timedelta(days=7)
    assert shortened["subscription"]["status"] == "active"
    gone = (await _act(admin, user, action="shorten", days=100)).json()["subscription"]
    assert (gone["status"], gone["is_active"]) == ("expired", False)
    assert [c["change"] for c in await _changes(outbox)] == ["extended", "extended", "extended"]
    assert (await _act(admin, user, action="extend")).json() == {"detail": "days parameter is required"}


async def test_set_end_date(admin, make_user, make_subscription):
    user = await make_user()
    await make_subscription(user, days=5)
    future = (utcnow() + timedelta(days=40)).replace(microsecond=0)
    body = (await _act(admin, user, action="set_end_date", end_date=future.isoformat())).json()
    assert _at(body["subscription"]["end_date"]) == future and body["subscription"]["status"] == "active"
    naive_past = (datetime.now(UTC) - timedelta(days=1)).replace(tzinfo=None, microsecond=0)
    past = (await _act(admin, user, action="set_end_date", end_date=naive_past.isoformat())).json()
    assert past["subscription"]["status"] == "expired"
    assert _at(past["subscription"]["end_date"]) == naive_past.replace(tzinfo=UTC)
    missing = await _act(admin, user, action="set_end_date")
    assert (missing.status_code, missing.json()) == (400, {"detail": "end_date parameter is required"})


async def test_traffic_devices_and_autopay(admin, make_user, make_subscription, db, outbox):
    user = await make_user()
    subscription = await make_subscription(user, traffic_limit_gb=100)
    body = (await _act(admin, user, action="set_traffic", traffic_limit_gb=200, traffic_used_gb=12.5)).json()
    assert (body["subscription"]["traffic_limit_gb"], body["subscription"]["traffic_used_gb"]) == (200, 12.5)
    added = (await _act(admin, user, action="add_traffic", traffic_gb=50)).json()["subscription"]
    assert (added["traffic_limit_gb"], added["purchased_traffic_gb"]) == (250, 50)
    (purchase,) = added["traffic_purchases"]
    assert (purchase["traffic_gb"], purchase["days_remaining"]) == (50, 29)
    removed = (await _act(admin, user, action="remove_traffic", traffic_purchase_id=purchase["id"])).json()
    assert removed["message"] == "Removed 50 GB traffic package"
    assert (removed["subscription"]["traffic_limit_gb"], removed["subscription"]["traffic_purchases"]) == (
        200,
        [],
    )
    async with db.session() as session:
        assert (await session.exec(select(TrafficPurchase))).all() == []
    unknown = await _act(admin, user, action="remove_traffic", traffic_purchase_id=purchase["id"])
    assert (unknown.status_code, unknown.json()) == (404, {"detail": "Traffic purchase not found"})
    devices = (await _act(admin, user, action="set_device_limit", device_limit=4)).json()["subscription"]
    assert devices["device_limit"] == 4
    before = len(await _changes(outbox))
    autopay = (await _act(admin, user, action="toggle_autopay", autopay_enabled=True)).json()
    assert (autopay["message"], autopay["subscription"]["autopay_enabled"]) == ("Autopay enabled", True)
    assert len(await _changes(outbox)) == before  # autopay is nothing the panel shows
    assert [c["change"] for c in await _changes(outbox)] == ["traffic", "traffic", "traffic", "devices"]
    assert (await _act(admin, user, action="set_traffic")).status_code == 400
    assert subscription.id == devices["id"]


async def test_cancel_and_activate(admin, make_user, make_subscription):
    user = await make_user()
    await make_subscription(user, days=5)
    cancelled = (await _act(admin, user, action="cancel")).json()["subscription"]
    assert (cancelled["status"], cancelled["is_active"], cancelled["days_remaining"]) == ("expired", False, 0)
    activated = (await _act(admin, user, action="activate")).json()["subscription"]
    assert (activated["status"], activated["is_active"], activated["days_remaining"]) == ("active", True, 29)


async def test_change_tariff_without_tariffs_is_404(admin, make_user, make_subscription, reload):
    user = await make_user()
    subscription = await make_subscription(user)
    response = await _act(admin, user, action="change_tariff", tariff_id=3)
    assert (response.status_code, response.json()) == (404, {"detail": "Tariff not found"})
    assert (await reload(Subscription, subscription.id)).tariff_id is None
    assert (await _act(admin, user, action="change_tariff")).status_code == 400


async def test_without_subscription_and_unknown_actions(admin, make_user):
    user = await make_user()
    response = await _act(admin, user, action="extend", days=3)
    assert (response.status_code, response.json()) == (404, {"detail": "User has no subscription"})
    unknown = await _act(admin, user, action="explode")
    assert (unknown.status_code, unknown.json()) == (400, {"detail": "Unknown action: explode"})


async def test_a_failed_action_changes_nothing(admin, make_user, make_subscription, reload, outbox):
    user = await make_user()
    subscription = await make_subscription(user, days=5)
    before = len(await outbox())
    response = await _act(admin, user, action="remove_traffic", traffic_purchase_id=99)
    assert response.status_code == 404
    row = await reload(Subscription, subscription.id)
    assert (row.end_date, row.traffic_limit_gb, row.updated_at) == (
        subscription.end_date,
        subscription.traffic_limit_gb,
        subscription.updated_at,
    )
    assert len(await outbox()) == before


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({}, ["body", "action"]),
        ({"action": "extend", "days": 0}, ["body", "days"]),
        ({"action": "extend", "days": 3651}, ["body", "days"]),
        ({"action": "set_traffic", "traffic_limit_gb": -1}, ["body", "traffic_limit_gb"]),
        ({"action": "set_traffic", "traffic_used_gb": -0.5}, ["body", "traffic_used_gb"]),
        ({"action": "add_traffic", "traffic_gb": 0}, ["body", "traffic_gb"]),
        ({"action": "set_device_limit", "device_limit": 0}, ["body", "device_limit"]),
        ({"action": "set_end_date", "end_date": "soon"}, ["body", "end_date"]),
    ],
)
async def test_bounds_are_422(admin, make_user, body, loc):
    user = await make_user()
    response = await _act(admin, user, **body)
    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["detail"]] == [loc]


async def test_dates_out_of_range_are_400_not_errors(admin, make_user, make_subscription):
    user = await make_user()
    await make_subscription(user)
    assert (
        await _act(admin, user, action="set_end_date", end_date="0001-01-02T00:00:00Z")
    ).status_code == 200
    response = await _act(admin, user, action="shorten", days=10)
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "The subscription's end date would be out of range"},
    )
    assert (
        await _act(admin, user, action="set_end_date", end_date="9999-12-30T00:00:00Z")
    ).status_code == 200
    assert (await _act(admin, user, action="extend", days=10)).status_code == 400
