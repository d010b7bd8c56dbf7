"""The dashboard and autopay through the mini app."""

from __future__ import annotations

from datetime import timedelta

from subsvc_subscriptions.api import Subscription, TrafficPurchase

from subsvc.db import utcnow
from subsvc.testing import stored


async def test_without_a_subscription_the_dashboard_says_it_is_missing(miniapp, make_user):
    me = await make_user(first_name="Mia", last_name="Moe")
    answer = await miniapp("/subscription", me)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["subscription_missing"], body["subscription_missing_reason"]) == (True, "not_found")
    assert body["subscription_id"] is None and body["subscription_type"] == "none"
    assert body["user"]["display_name"] == "Mia Moe"
    assert body["user"]["subscription_actual_status"] == "none"
    assert body["salesMode"] in ("classic", "tariffs")


async def test_the_dashboard_shows_the_subscription_balance_and_history(
    miniapp, make_user, make_subscription, client, db
):
    me = await make_user()
    sub = await make_subscription(
        me,
        ["sq-1"],
        days=10,
        status="active",
        traffic_limit_gb=50,
        traffic_used_gb=2.5,
        device_limit=2,
        subscription_url="https://sub.example/abc",
        autopay_enabled=True,
        autopay_days_before=2,
    )
    now = utcnow()
    await stored(
        db,
        TrafficPurchase(
            subscription_id=sub.id,
            traffic_gb=10,
            created_at=now - timedelta(days=3),
            expires_at=now + timedelta(days=27),
        ),
    )
    deposit = await client.post(
        f"/users/{me.id}/balance", json={"amount_kopeks": 12_345, "description": "gift"}
    )
    assert deposit.status_code in (200, 201), deposit.text
    body = (await miniapp("/subscription", me)).json()
    assert body["subscription_id"] == sub.id and body["subscription_missing"] is False
    assert body["subscription_type"] == "paid" and body["connected_squads"] == ["sq-1"]
    assert body["subscription_url"] == "https://sub.example/abc"
    assert (body["user"]["status_label"], body["user"]["traffic_limit_label"]) == ("Активна", "50 ГБ")
    assert body["user"]["has_active_subscription"] is True and body["user"]["device_limit"] == 2
    assert (body["balance_kopeks"], body["balance_rubles"]) == (12_345, 123.45)
    assert [t["amount_kopeks"] for t in body["transactions"]] == [12_345]
    (package,) = body["traffic_purchases"]
    assert package["traffic_gb"] == 10 and package["days_remaining"] in (26, 27)
    assert 9 <= package["progress_percent"] <= 11
    assert (body["autopay_enabled"], body["autopay_days_before"], body["autopay"]["enabled"]) == (
        True,
        2,
        True,
    )


async def test_autopay_is_switched_and_refused_for_trials(
    miniapp, make_user, make_subscription, make_tariff, reload
):
    tariff = await make_tariff()
    me = await make_user()
    sub = await make_subscription(me, days=20, status="active", tariff_id=tariff.id)
    on = await miniapp("/subscription/autopay", me, enabled=True, daysBefore=5)
    assert on.status_code == 200, on.text
    assert (on.json()["autopay_enabled"], on.json()["autopay_days_before"]) == (True, 5)
    stored_row = await reload(Subscription, sub.id)
    assert (stored_row.autopay_enabled, stored_row.autopay_days_before) == (True, 5)
    bad = await miniapp("/subscription/autopay", me, daysBefore=0)
    assert (bad.status_code, bad.json()["detail"]["code"]) == (400, "autopay_no_days")
    off = await miniapp("/subscription/autopay", me, enabled=False)
    assert off.json()["autopay_enabled"] is False

    trial_user = await make_user()
    await make_subscription(trial_user, days=3, status="trial", is_trial=True, tariff_id=tariff.id)
    classic = await make_user()
    await make_subscription(classic, days=3, status="active")
    no_tariff = await miniapp("/subscription/autopay", classic, enabled=True)
    assert (no_tariff.status_code, no_tariff.json()["detail"]["code"]) == (400, "autopay_not_available")
    refused = await miniapp("/subscription/autopay", trial_user, enabled=True)
    assert (refused.status_code, refused.json()["detail"]["code"]) == (400, "autopay_not_available_for_trial")
    nobody = await miniapp("/subscription/autopay", await make_user(), enabled=True)
    assert (nobody.status_code, nobody.json()["detail"]) == (
        404,
        {"code": "subscription_not_found", "message": "Subscription not found"},
    )
    others = await miniapp("/subscription/autopay", trial_user, subscriptionId=sub.id, enabled=True)
    assert others.status_code == 404


async def test_the_dashboard_shows_the_tariff_and_the_daily_charge(
    miniapp, make_user, make_subscription, make_tariff
):
    daily = await make_tariff(
        name="Day", period_prices={}, is_daily=True, daily_price_kopeks=1_000, allowed_squads=["a", "b"]
    )
    me = await make_user()
    await make_subscription(me, days=1, status="active", tariff_id=daily.id, last_daily_charge_at=utcnow())
    body = (await miniapp("/subscription", me)).json()
    tariff = body["currentTariff"]
    assert (tariff["id"], tariff["name"], tariff["is_daily"], tariff["servers_count"]) == (
        daily.id,
        "Day",
        True,
        2,
    )
    assert tariff["daily_price_kopeks"] == 1_000 and tariff["daily_price_label"] == "10 ₽"
    user = body["user"]
    assert (user["is_daily_tariff"], user["daily_tariff_name"], user["daily_price_kopeks"]) == (
        True,
        "Day",
        1_000,
    )
    assert user["daily_next_charge_at"] is not None
