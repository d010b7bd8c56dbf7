"""Daily tariffs: pause and resume, the daily charge over a controllable clock (once a day,
whatever the runs), a short balance disabling the subscription and a paid resume."""

from __future__ import annotations

from datetime import timedelta

from subsvc_renewals.api import charge_daily_due
from subsvc_subscriptions.api import Subscription

from subsvc.db import utcnow

PAUSE = "/cabinet/subscription/pause"


async def daily_subscriber(subscriber, make_tariff, balance: int, **fields):
    tariff = await make_tariff(period_prices={}, is_daily=True, daily_price_kopeks=1_000)
    fields.setdefault("last_daily_charge_at", utcnow())
    return await subscriber(tariff=tariff, balance=balance, days=1, **fields)


async def test_pause_and_resume(cabinet, make_tariff, subscriber, reload):
    me = await daily_subscriber(subscriber, make_tariff, 5_000)
    async with cabinet(me.user.id) as http:
        paused = await http.post(PAUSE)
        assert (paused.status_code, paused.json()) == (
            200,
            {
                "success": True,
                "message": "Daily subscription paused",
                "is_paused": True,
                "balance_kopeks": 5_000,
                "balance_label": "50 ₽",
            },
        )
        assert (await reload(Subscription, me.subscription.id)).is_daily_paused is True
        resumed = await http.post(PAUSE)
        assert (resumed.json()["message"], resumed.json()["is_paused"]) == (
            "Daily subscription resumed",
            False,
        )


async def test_pause_refusals(cabinet, make_user, make_tariff, subscriber):
    periodic = await subscriber(tariff=await make_tariff())
    classic = await subscriber()
    for who, detail in (
        (periodic, "Pause is only available for daily tariffs"),
        (classic, "Subscription has no tariff"),
    ):
        async with cabinet(who.user.id) as http:
            refused = await http.post(PAUSE)
            assert (refused.status_code, refused.json()) == (400, {"detail": detail})
    async with cabinet((await make_user()).id) as http:
        assert (await http.post(PAUSE)).status_code == 404


async def test_the_daily_charge_runs_once_a_day_and_disables_when_short(
    app, cabinet, make_tariff, subscriber, reload, balance_over_http, outbox, new_payment, credit
):
    me = await daily_subscriber(subscriber, make_tariff, 1_500)
    paused = await daily_subscriber(subscriber, make_tariff, 5_000, is_daily_paused=True)
    assert await charge_daily_due(app) == 0  # the day is not over
    tomorrow = utcnow() + timedelta(days=1, minutes=1)
    assert await charge_daily_due(app, now=tomorrow) == 1
    assert await charge_daily_due(app, now=tomorrow) == 0  # run twice: charged once
    assert await balance_over_http(me.user) == 500
    assert await balance_over_http(paused.user) == 5_000
    row = await reload(Subscription, me.subscription.id)
    assert row.last_daily_charge_at == tomorrow and row.end_date > tomorrow
    # the next day the balance is short: disabled, reported
    assert await charge_daily_due(app, now=tomorrow + timedelta(days=1)) == 0
    assert (await reload(Subscription, me.subscription.id)).status == "disabled"
    failed = [p for kind, p in await outbox() if kind == "subscription.autopay_failed"]
    assert [(p["subscription_id"], p["daily"], p["required_kopeks"]) for p in failed] == [
        (me.subscription.id, True, 1_000)
    ]
    # resuming pays a day: short first, then after a credit
    async with cabinet(me.user.id) as http:
        short = await http.post(PAUSE)
        assert (short.status_code, short.json()["detail"]["code"]) == (402, "insufficient_balance")
        assert short.json()["detail"]["required"] == 1_000
    await new_payment(me.user.id, 2_000, provider_payment_id="p-daily")
    assert (await credit("p-daily", 2_000)).credited
    async with cabinet(me.user.id) as http:
        resumed = await http.post(PAUSE)
    assert resumed.status_code == 200, resumed.text
    assert (resumed.json()["message"], resumed.json()["balance_kopeks"]) == (
        "Daily subscription resumed",
        1_500,
    )
    row = await reload(Subscription, me.subscription.id)
    assert row.status == "active" and row.end_date > utcnow() + timedelta(hours=23)
