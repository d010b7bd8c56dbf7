"""Switching tariffs (§2.3, better than the reference): charged in one transaction with the
change, extra devices carried up to the new cap and the rest refunded, purchased traffic kept,
a free switch still recorded as a 0-kopek payment; 402 changes nothing."""

from __future__ import annotations

from datetime import timedelta

from subsvc_subscriptions.api import Subscription, TrafficPurchase

from subsvc.db import utcnow
from subsvc.testing import stored

SWITCH = "/cabinet/subscription/tariff/switch"


async def test_an_upgrade_carries_devices_refunds_the_rest_and_keeps_traffic(
    db, cabinet, make_tariff, subscriber, reload, transactions_over_http, balance_over_http, outbox
):
    old = await make_tariff(
        period_prices={"30": 30_000}, device_price_kopeks=5_000, max_device_limit=3, traffic_limit_gb=50
    )
    new = await make_tariff(
        period_prices={"30": 60_000},
        device_limit=2,
        device_price_kopeks=5_000,
        max_device_limit=3,
        traffic_limit_gb=100,
        allowed_squads=["sq-new"],
    )
    me = await subscriber(
        tariff=old, device_limit=4, days=15.5, balance=20_000, traffic_limit_gb=60, purchased_traffic_gb=10
    )
    await stored(
        db,
        TrafficPurchase(
            subscription_id=me.subscription.id, traffic_gb=10, expires_at=utcnow() + timedelta(days=20)
        ),
    )
    async with cabinet(me.user.id) as http:
        switched = await http.post(SWITCH, json={"tariff_id": new.id, "period_days": 30})
    assert switched.status_code == 200, switched.text
    body = switched.json()
    assert body["message"] == f"Switched from '{old.name}' to '{new.name}'"
    assert (body["charged_kopeks"], body["refund_kopeks"]) == (15_000, 5_333)
    assert (body["devices_carried"], body["devices_dropped"]) == (1, 2)
    assert body["balance_kopeks"] == 20_000 - 15_000 + 5_333 == await balance_over_http(me.user)
    row = await reload(Subscription, me.subscription.id)
    assert (row.tariff_id, row.device_limit, row.connected_squads) == (new.id, 3, ["sq-new"])
    assert (row.traffic_limit_gb, row.purchased_traffic_gb) == (110, 10)  # the purchase stays on top
    assert row.end_date == me.subscription.end_date  # a periodic switch keeps the end
    assert body["subscription"]["tariff_id"] == new.id and body["subscription"]["device_limit"] == 3
    kinds = sorted((t["type"], t["amount_kopeks"]) for t in await transactions_over_http(me.user))
    assert kinds == [("refund", 5_333), ("subscription_payment", 15_000)]
    assert any(kind == "subscription.changed" and p["change"] == "tariff" for kind, p in await outbox())


async def test_a_downgrade_is_free_and_recorded(
    cabinet, make_tariff, subscriber, reload, transactions_over_http
):
    old = await make_tariff(period_prices={"30": 60_000})
    new = await make_tariff(period_prices={"30": 30_000})
    me = await subscriber(tariff=old, days=10.5)
    async with cabinet(me.user.id) as http:
        switched = await http.post(SWITCH, json={"tariff_id": new.id, "period_days": 30})
    assert switched.status_code == 200, switched.text
    assert (switched.json()["charged_kopeks"], switched.json()["balance_kopeks"]) == (0, 0)
    assert (await reload(Subscription, me.subscription.id)).tariff_id == new.id
    (payment,) = await transactions_over_http(me.user)
    assert (payment["type"], payment["amount_kopeks"]) == ("subscription_payment", 0)


async def test_to_a_daily_tariff_starts_a_new_day(cabinet, make_tariff, subscriber, reload):
    old = await make_tariff(period_prices={"30": 30_000})
    daily = await make_tariff(period_prices={}, is_daily=True, daily_price_kopeks=1_500)
    me = await subscriber(tariff=old, days=20, balance=5_000)
    async with cabinet(me.user.id) as http:
        switched = await http.post(SWITCH, json={"tariff_id": daily.id, "period_days": 1})
    assert switched.status_code == 200, switched.text
    assert switched.json()["charged_kopeks"] == 1_500
    row = await reload(Subscription, me.subscription.id)
    assert row.last_daily_charge_at is not None
    assert abs(row.end_date - (utcnow() + timedelta(days=1))) < timedelta(minutes=1)


async def test_short_is_402_and_nothing_changes(cabinet, make_tariff, subscriber, reload, balance_over_http):
    old = await make_tariff(period_prices={"30": 30_000})
    new = await make_tariff(period_prices={"30": 60_000})
    me = await subscriber(tariff=old, days=15.5, balance=1_000)
    async with cabinet(me.user.id) as http:
        short = await http.post(SWITCH, json={"tariff_id": new.id, "period_days": 30})
    assert short.status_code == 402
    assert short.json()["detail"] == {
        "code": "insufficient_funds",
        "message": "Insufficient funds. Missing 140 ₽",
        "missing_amount": 14_000,
    }
    assert (await reload(Subscription, me.subscription.id)).tariff_id == old.id
    assert await balance_over_http(me.user) == 1_000


async def test_holding_the_target_tariff_already_is_409(
    cabinet, make_tariff, subscriber, make_subscription, reload
):
    old, new = (
        await make_tariff(period_prices={"30": 60_000}),
        await make_tariff(period_prices={"30": 30_000}),
    )
    me = await subscriber(tariff=old, days=10.5)
    await make_subscription(me.user, tariff_id=new.id, status="active", days=5)
    async with cabinet(me.user.id) as http:
        refused = await http.post(
            SWITCH, json={"tariff_id": new.id, "period_days": 30, "subscription_id": me.subscription.id}
        )
    assert (refused.status_code, refused.json()) == (
        409,
        {"detail": "You already have an active subscription for the target tariff"},
    )
    assert (await reload(Subscription, me.subscription.id)).tariff_id == old.id
