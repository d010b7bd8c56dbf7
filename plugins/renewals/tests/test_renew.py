"""Renewing from the balance (§2.2): the debit, its transaction and the extension in one
transaction; the refusals; short of money a 402 with an ``extend`` cart that a top-up
completes, once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from subsvc_subscriptions.api import Subscription

from subsvc.testing import parse_utc

RENEW = "/cabinet/subscription/renew"


async def test_a_renewal_is_paid_and_extends_the_end(
    cabinet, make_tariff, subscriber, reload, outbox, transactions_over_http, balance_over_http
):
    tariff = await make_tariff(period_prices={"30": 30_000, "90": 80_000})
    me = await subscriber(tariff=tariff, days=10, balance=50_000)
    async with cabinet(me.user.id) as http:
        renewed = await http.post(RENEW, json={"period_days": 30})
    assert renewed.status_code == 200, renewed.text
    body = renewed.json()
    assert (body["message"], body["amount_paid_kopeks"]) == ("Subscription renewed successfully", 30_000)
    assert parse_utc(body["new_end_date"]) == me.subscription.end_date + timedelta(days=30)
    assert (await reload(Subscription, me.subscription.id)).end_date == me.subscription.end_date + timedelta(
        days=30
    )
    assert await balance_over_http(me.user) == 20_000
    (payment,) = await transactions_over_http(me.user)
    assert (payment["type"], payment["amount_kopeks"], payment["payment_method"]) == (
        "subscription_payment",
        30_000,
        "balance",
    )
    kinds = [kind for kind, _ in await outbox()]
    assert "subscription.renewed" in kinds and "subscription.changed" in kinds


async def test_an_expired_subscription_renews_from_now(cabinet, make_tariff, subscriber, reload):
    me = await subscriber(tariff=await make_tariff(), days=-5, status="expired", balance=30_000)
    async with cabinet(me.user.id) as http:
        renewed = await http.post(RENEW, json={"period_days": 30})
    assert renewed.status_code == 200, renewed.text
    row = await reload(Subscription, me.subscription.id)
    assert row.status == "active"
    assert abs(
        parse_utc(renewed.json()["new_end_date"]) - (me.subscription.end_date + timedelta(days=35))
    ) < timedelta(minutes=1)


async def test_refusals(cabinet, make_user, make_tariff, subscriber, balance_over_http):
    tariff = await make_tariff(period_prices={"30": 30_000})
    free = await make_tariff(period_prices={"30": 0})
    cases = [
        (
            await subscriber(tariff=tariff, balance=90_000),
            45,
            400,
            "Selected renewal period is not available",
        ),
        (await subscriber(tariff=free), 30, 400, "Invalid renewal period"),
        (
            await subscriber(tariff=tariff, status="disabled"),
            30,
            400,
            "Cannot renew subscription with status: disabled",
        ),
        (await subscriber(), 30, 400, "Classic subscriptions cannot be renewed. Please purchase a tariff."),
    ]
    for who, days, status, detail in cases:
        async with cabinet(who.user.id) as http:
            refused = await http.post(RENEW, json={"period_days": days})
        assert (refused.status_code, refused.json()) == (status, {"detail": detail})
    assert await balance_over_http(cases[0][0].user) == 90_000
    async with cabinet((await make_user()).id) as http:
        missing = await http.post(RENEW, json={"period_days": 30})
        assert (missing.status_code, missing.json()) == (404, {"detail": "No subscription found"})
        assert (await http.post(RENEW, json={"period_days": 0})).status_code == 422


@pytest.mark.renewals_env(AUTO_PURCHASE_AFTER_TOPUP_ENABLED="true")
async def test_short_a_cart_is_kept_and_a_top_up_renews_once(
    cabinet,
    make_tariff,
    subscriber,
    reload,
    new_payment,
    credit,
    wait_for,
    transactions_over_http,
    balance_over_http,
):
    tariff = await make_tariff(period_prices={"30": 30_000})
    me = await subscriber(tariff=tariff, days=3, balance=10_000)
    async with cabinet(me.user.id) as http:
        short = await http.post(RENEW, json={"period_days": 30})
    assert (short.status_code, short.json()) == (
        402,
        {
            "detail": {
                "code": "insufficient_funds",
                "message": "Недостаточно средств. Не хватает 200 ₽",
                "missing_amount": 20_000,
                "cart_saved": True,
                "cart_mode": "extend",
            }
        },
    )
    assert await balance_over_http(me.user) == 10_000
    await new_payment(me.user.id, 25_000, provider_payment_id="p-1")
    assert (await credit("p-1", 25_000)).credited
    renewed_end = me.subscription.end_date + timedelta(days=30)

    async def renewed() -> bool:
        return (await reload(Subscription, me.subscription.id)).end_date == renewed_end

    await wait_for(renewed)
    await new_payment(me.user.id, 40_000, provider_payment_id="p-2")  # a second top-up: the cart is gone
    assert (await credit("p-2", 40_000)).credited
    await wait_for(lambda: True)
    assert (await reload(Subscription, me.subscription.id)).end_date == renewed_end
    payments = [t for t in await transactions_over_http(me.user) if t["type"] == "subscription_payment"]
    assert [p["amount_kopeks"] for p in payments] == [30_000]
    assert await balance_over_http(me.user) == 10_000 + 25_000 - 30_000 + 40_000


@pytest.mark.renewals_env(MULTI_TARIFF_ENABLED="true")
async def test_multi_tariff_renews_the_subscription_named(cabinet, make_tariff, subscriber, reload):
    basic, pro = (
        await make_tariff(period_prices={"30": 10_000}),
        await make_tariff(period_prices={"30": 20_000}),
    )
    me = await subscriber(tariff=basic, days=20, balance=50_000)
    other = await subscriber(user=me.user, tariff=pro, days=5)
    stranger = await subscriber(tariff=basic, days=5)
    async with cabinet(me.user.id) as http:
        by_query = await http.post(
            RENEW, params={"subscription_id": other.subscription.id}, json={"period_days": 30}
        )
        assert (by_query.status_code, by_query.json()["amount_paid_kopeks"]) == (200, 20_000)
        in_body = await http.post(RENEW, json={"period_days": 30, "subscription_id": me.subscription.id})
        assert (in_body.status_code, in_body.json()["amount_paid_kopeks"]) == (200, 10_000)
        theirs = await http.post(RENEW, json={"period_days": 30, "subscription_id": stranger.subscription.id})
        assert (theirs.status_code, theirs.json()) == (404, {"detail": "No subscription found"})
    assert (
        await reload(Subscription, other.subscription.id)
    ).end_date == other.subscription.end_date + timedelta(days=30)
    assert (await reload(Subscription, me.subscription.id)).end_date == me.subscription.end_date + timedelta(
        days=30
    )


@pytest.mark.renewals_env(RESET_TRAFFIC_ON_PAYMENT="true")
async def test_renewing_an_expired_subscription_asks_the_panel_to_reset_its_traffic(
    cabinet, make_tariff, subscriber, outbox
):
    tariff = await make_tariff(period_prices={"30": 10_000})
    running = await subscriber(tariff=tariff, days=5, balance=10_000)
    ended = await subscriber(tariff=tariff, days=-1, balance=10_000)
    for who in (running, ended):
        async with cabinet(who.user.id) as http:
            assert (await http.post(RENEW, json={"period_days": 30})).status_code == 200
    changed = {
        p["subscription_id"]: p["panel_actions"]
        for kind, p in await outbox()
        if kind == "subscription.changed"
    }
    assert changed == {running.subscription.id: [], ended.subscription.id: ["reset_traffic"]}
