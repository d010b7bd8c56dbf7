"""Autopay over a controllable clock: renewed from the balance ``days_before`` days before the
end, once per term however often (and by however many workers) the job runs; a short balance
reported once per term."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from subsvc_renewals.api import autopay_due
from subsvc_subscriptions.api import Subscription


async def test_autopay_renews_once_per_term(
    app, make_tariff, subscriber, reload, transactions_over_http, outbox
):
    tariff = await make_tariff(period_prices={"30": 30_000, "90": 80_000})
    me = await subscriber(
        tariff=tariff, days=10, balance=100_000, autopay_enabled=True, autopay_days_before=3
    )
    end = me.subscription.end_date
    assert await autopay_due(app, now=end - timedelta(days=4)) == 0  # not yet
    at = end - timedelta(days=2)
    results = await asyncio.gather(*(autopay_due(app, now=at) for _ in range(3)))  # three workers at once
    assert sum(results) == 1
    assert await autopay_due(app, now=at) == 0  # and once more after them
    row = await reload(Subscription, me.subscription.id)
    assert row.end_date == end + timedelta(days=30)  # the tariff's shortest period
    payments = [
        t["amount_kopeks"]
        for t in await transactions_over_http(me.user)
        if t["type"] == "subscription_payment"
    ]
    assert payments == [30_000]
    renewed = [p for kind, p in await outbox() if kind == "subscription.renewed"]
    assert [(p["source"], p["days"], p["amount_kopeks"]) for p in renewed] == [("autopay", 30, 30_000)]
    # the next term: due again 3 days before its end
    assert await autopay_due(app, now=row.end_date - timedelta(days=2)) == 1
    assert (await reload(Subscription, me.subscription.id)).end_date == end + timedelta(days=60)


async def test_a_short_balance_is_reported_once_per_term(app, make_tariff, subscriber, reload, outbox):
    tariff = await make_tariff(period_prices={"30": 30_000})
    me = await subscriber(tariff=tariff, days=2, balance=1_000, autopay_enabled=True, autopay_days_before=3)
    assert await autopay_due(app) == 0
    assert await autopay_due(app) == 0
    failed = [p for kind, p in await outbox() if kind == "subscription.autopay_failed"]
    assert [
        (p["subscription_id"], p["reason"], p["required_kopeks"], p["balance_kopeks"]) for p in failed
    ] == [(me.subscription.id, "insufficient_funds", 30_000, 1_000)]
    assert (await reload(Subscription, me.subscription.id)).end_date == me.subscription.end_date


async def test_trials_daily_and_disabled_autopay_are_left_alone(app, make_tariff, subscriber):
    tariff = await make_tariff(period_prices={"30": 30_000})
    await subscriber(tariff=tariff, days=1, balance=100_000, autopay_enabled=False)
    await subscriber(
        tariff=tariff, days=1, balance=100_000, autopay_enabled=True, is_trial=True, status="trial"
    )
    assert await autopay_due(app) == 0
