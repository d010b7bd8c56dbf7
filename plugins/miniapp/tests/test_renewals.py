"""Renewal, tariff switch and daily pause through the mini app: the renewals plugin's rules
and money moves, the mini app's bodies."""

from __future__ import annotations

from datetime import timedelta

from subsvc_billing.api import Transaction
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc.db import utcnow


async def test_renewal_options_and_a_renewal_from_the_balance(
    miniapp, make_user, make_subscription, make_tariff, reload, rows
):
    tariff = await make_tariff(period_prices={"30": 30_000, "90": 80_000})
    me = await make_user(balance_kopeks=50_000)
    sub = await make_subscription(me, days=10, status="active", tariff_id=tariff.id)
    options = await miniapp("/subscription/renewal/options", me)
    assert options.status_code == 200, options.text
    body = options.json()
    assert body["subscriptionId"] == sub.id and body["currency"] == "RUB"
    assert [(p["id"], p["days"], p["priceKopeks"]) for p in body["periods"]] == [
        ("30", 30, 30_000),
        ("90", 90, 80_000),
    ]
    assert (body["balanceKopeks"], body["missingAmountKopeks"], body["salesMode"]) == (50_000, 0, "tariffs")
    renewed = await miniapp("/subscription/renewal", me, periodId="30")
    assert renewed.status_code == 200, renewed.text
    answer = renewed.json()
    assert (answer["success"], answer["balanceKopeks"], answer["subscriptionId"]) == (True, 20_000, sub.id)
    row = await reload(Subscription, sub.id)
    assert row.end_date == sub.end_date + timedelta(days=30)
    assert (await reload(User, me.id)).balance_kopeks == 20_000
    (payment,) = await rows(Transaction)
    assert payment.type == "subscription_payment" and abs(payment.amount_kopeks) == 30_000


async def test_a_short_balance_is_402_and_nothing_moves(
    miniapp, make_user, make_subscription, make_tariff, reload
):
    tariff = await make_tariff(period_prices={"30": 30_000})
    me = await make_user(balance_kopeks=1_000)
    sub = await make_subscription(me, days=10, status="active", tariff_id=tariff.id)
    short = await miniapp("/subscription/renewal", me, periodDays=30)
    assert short.status_code == 402, short.text
    detail = short.json()["detail"]
    assert detail["code"] == "insufficient_funds" and detail["cart_saved"] is True
    assert (await reload(Subscription, sub.id)).end_date == sub.end_date
    assert (await reload(User, me.id)).balance_kopeks == 1_000


async def test_renewal_refusals_are_objects(miniapp, make_user, make_subscription, make_tariff):
    lonely = await make_user()
    none = await miniapp("/subscription/renewal", lonely, periodDays=30)
    assert (none.status_code, none.json()["detail"]["code"]) == (404, "subscription_not_found")
    assert (await miniapp("/subscription/renewal/options", lonely)).json()["periods"] == []
    bad = await miniapp("/subscription/renewal", lonely, periodId="soon")
    assert (bad.status_code, bad.json()["detail"]["code"]) == (400, "invalid_period")
    me = await make_user(balance_kopeks=90_000)
    await make_subscription(me, days=10, status="active", tariff_id=(await make_tariff()).id)
    odd = await miniapp("/subscription/renewal", me, periodDays=45)
    assert (
        odd.status_code == 400
        and odd.json()["detail"]["message"] == "Selected renewal period is not available"
    )


async def test_a_tariff_switch_is_previewed_then_made(
    miniapp, make_user, make_subscription, make_tariff, reload
):
    old = await make_tariff(period_prices={"30": 30_000})
    new = await make_tariff(period_prices={"30": 60_000})
    me = await make_user(balance_kopeks=50_000)
    sub = await make_subscription(me, days=15.5, status="active", tariff_id=old.id)
    preview = await miniapp("/subscription/tariff/switch/preview", me, key="init_data", tariff_id=new.id)
    assert preview.status_code == 200, preview.text
    quote = preview.json()
    assert (quote["can_switch"], quote["new_tariff_id"], quote["upgrade_cost_kopeks"]) == (
        True,
        new.id,
        15_000,
    )
    switched = await miniapp("/subscription/tariff/switch", me, key="init_data", tariff_id=new.id)
    assert switched.status_code == 200, switched.text
    assert switched.json()["charged_kopeks"] == 15_000
    assert (await reload(Subscription, sub.id)).tariff_id == new.id
    assert (await reload(User, me.id)).balance_kopeks == 35_000
    again = await miniapp("/subscription/tariff/switch", me, key="init_data", tariff_id=new.id)
    assert again.status_code == 400 and again.json()["detail"]["message"] == "Already on this tariff"


async def test_a_daily_tariff_is_paused_and_resumed(
    miniapp, make_user, make_subscription, make_tariff, reload
):
    daily = await make_tariff(period_prices={}, is_daily=True, daily_price_kopeks=1_000)
    me = await make_user(balance_kopeks=5_000)
    sub = await make_subscription(
        me, days=1, status="active", tariff_id=daily.id, last_daily_charge_at=utcnow()
    )
    paused = await miniapp("/subscription/daily/toggle-pause", me, key="init_data")
    assert paused.status_code == 200, paused.text
    assert (paused.json()["is_paused"], paused.json()["message"]) == (True, "Daily subscription paused")
    assert (await reload(Subscription, sub.id)).is_daily_paused is True
    resumed = await miniapp("/subscription/daily/toggle-pause", me, subscriptionId=sub.id)
    assert resumed.json()["is_paused"] is False
    refused = await miniapp("/subscription/autopay", me, enabled=True)
    assert (refused.status_code, refused.json()["detail"]["code"]) == (400, "autopay_not_available_for_daily")
