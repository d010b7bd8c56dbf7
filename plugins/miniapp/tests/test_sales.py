"""The trial, the classic purchase and the tariff purchase through the mini app: the sales
plugin's rules and money moves, the mini app's bodies."""

from __future__ import annotations

import pytest
from subsvc_billing.api import Transaction
from subsvc_servers.api import Server
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc.testing import stored

PRICE = 9_900 + 5_000 + 3_500  # classic tables: 30 days, the server a month, the 10 GB tier a month
CLASSIC = pytest.mark.miniapp_env(SALES_MODE="classic")


async def test_a_trial_is_taken_once(miniapp, make_user, rows):
    me = await make_user(balance_kopeks=0)
    taken = await miniapp("/subscription/trial", me)
    assert taken.status_code == 200, taken.text
    body = taken.json()
    (trial,) = await rows(Subscription)
    assert (body["success"], body["subscriptionId"], body["trialDurationDays"]) == (True, trial.id, 3)
    assert (body["chargedAmountKopeks"], body["balanceKopeks"], trial.is_trial) == (0, 0, True)
    again = await miniapp("/subscription/trial", me)
    assert (again.status_code, again.json()["detail"]) == (
        400,
        {"code": "trial_unavailable", "message": "Trial already used"},
    )
    assert len(await rows(Subscription)) == 1


@pytest.mark.miniapp_env(TRIAL_PAYMENT_ENABLED="true", TRIAL_ACTIVATION_PRICE="5000")
async def test_a_paid_trial_short_of_balance_is_402(miniapp, make_user, rows, reload):
    me = await make_user(balance_kopeks=1_000)
    short = await miniapp("/subscription/trial", me)
    assert (short.status_code, short.json()["detail"]["code"]) == (402, "insufficient_funds")
    assert await rows(Subscription) == []
    assert (await reload(User, me.id)).balance_kopeks == 1_000


async def test_tariffs_are_listed_and_bought_from_the_balance(
    miniapp, make_user, make_tariff, reload, rows, db
):
    tariff = await make_tariff(
        period_prices={"30": 30_000, "90": 80_000}, device_limit=2, allowed_squads=["squad-a", "squad-x"]
    )
    await stored(db, Server(squad_uuid="squad-a", display_name="Amsterdam", price_kopeks=0))
    me = await make_user(balance_kopeks=50_000)
    listed = await miniapp("/subscription/tariffs", me)
    assert listed.status_code == 200, listed.text
    body = listed.json()
    assert (body["sales_mode"], body["balance_kopeks"], body["current_tariff"]) == ("tariffs", 50_000, None)
    (offered,) = body["tariffs"]
    assert offered["id"] == tariff.id and offered["device_limit"] == 2
    assert offered["servers"] == [
        {"uuid": "squad-a", "name": "Amsterdam"},
        {"uuid": "squad-x", "name": "squad-x"},
    ]
    assert [(p["days"], p["price_kopeks"]) for p in offered["periods"]] == [(30, 30_000), (90, 80_000)]
    bought = await miniapp("/subscription/tariff/purchase", me, tariffId=tariff.id, periodDays=30)
    assert bought.status_code == 200, bought.text
    answer = bought.json()
    (sub,) = await rows(Subscription)
    assert (answer["subscription_id"], answer["tariff_id"], answer["balance_kopeks"]) == (
        sub.id,
        tariff.id,
        20_000,
    )
    assert sub.tariff_id == tariff.id and (await reload(User, me.id)).balance_kopeks == 20_000
    (payment,) = await rows(Transaction)
    assert payment.type == "subscription_payment" and abs(payment.amount_kopeks) == 30_000
    current = (await miniapp("/subscription/tariffs", me)).json()["current_tariff"]
    assert current["id"] == tariff.id


async def test_a_tariff_short_of_balance_is_402_and_nothing_moves(
    miniapp, make_user, make_tariff, reload, rows
):
    tariff = await make_tariff(period_prices={"30": 30_000})
    me = await make_user(balance_kopeks=1_000)
    short = await miniapp("/subscription/tariff/purchase", me, tariffId=tariff.id, periodDays=30)
    assert short.status_code == 402, short.text
    detail = short.json()["detail"]
    assert (detail["code"], detail["missing_amount"], detail["cart_saved"]) == (
        "insufficient_funds",
        29_000,
        True,
    )
    assert await rows(Subscription) == [] and await rows(Transaction) == []
    assert (await reload(User, me.id)).balance_kopeks == 1_000


async def test_tariff_purchase_refusals_are_objects(miniapp, make_user, make_tariff):
    me = await make_user(balance_kopeks=90_000)
    unknown = await miniapp("/subscription/tariff/purchase", me, tariffId=999_999, periodDays=30)
    assert (unknown.status_code, unknown.json()["detail"]["code"]) == (404, "tariff_not_found")
    tariff = await make_tariff()
    zero = await miniapp("/subscription/tariff/purchase", me, tariffId=tariff.id, periodDays=0)
    assert (zero.status_code, zero.json()["detail"]["code"]) == (400, "invalid_period")
    missing = await miniapp("/subscription/tariff/purchase", me, tariffId=tariff.id)
    assert missing.status_code == 422
    classic_only = await miniapp("/subscription/purchase/preview", me, periodDays=30)
    assert classic_only.status_code == 400 and classic_only.json()["detail"]["message"].startswith(
        "This endpoint is not available in tariffs mode"
    )


@pytest.fixture
async def server(db):
    return await stored(db, Server(squad_uuid="squad-a", display_name="A", price_kopeks=5_000))


@CLASSIC
async def test_classic_options_and_preview(miniapp, make_user, server):
    me = await make_user(balance_kopeks=10_000)
    options = await miniapp("/subscription/purchase/options", me)
    assert options.status_code == 200, options.text
    body = options.json()
    assert (body["currency"], body["balanceKopeks"], body["subscriptionId"]) == ("RUB", 10_000, None)
    assert body["data"]["sales_mode"] == "classic" and body["data"]["selection"]["servers"] == ["squad-a"]
    preview = await miniapp(
        "/subscription/purchase/preview", me, periodId="30", trafficValue=10, servers=["squad-a"], devices=1
    )
    assert preview.status_code == 200, preview.text
    quote = preview.json()["preview"]
    assert (quote["total_price_kopeks"], quote["missing_amount_kopeks"]) == (PRICE, PRICE - 10_000)
    inside = await miniapp(
        "/subscription/purchase/preview",
        me,
        selection={"period_days": 30, "traffic_value": 10, "servers": ["squad-a"], "devices": 1},
    )
    assert inside.json()["preview"]["total_price_kopeks"] == PRICE
    odd = await miniapp("/subscription/purchase/preview", me, periodDays=45, servers=["squad-a"])
    assert (odd.status_code, odd.json()["detail"]["code"]) == (400, "invalid_period")
    tariffs = (await miniapp("/subscription/tariffs", me)).json()
    assert (tariffs["sales_mode"], tariffs["tariffs"]) == ("classic", [])


@CLASSIC
async def test_a_classic_purchase_short_then_paid(miniapp, make_user, server, reload, rows):
    me = await make_user(balance_kopeks=10_000)
    fields = {"periodDays": 30, "traffic": 10, "countries": ["squad-a"], "deviceLimit": 1}
    short = await miniapp("/subscription/purchase", me, **fields)
    assert short.status_code == 402, short.text
    assert short.json()["detail"]["code"] == "insufficient_funds"
    assert await rows(Subscription) == [] and (await reload(User, me.id)).balance_kopeks == 10_000
    rich = await make_user(balance_kopeks=20_000)
    bought = await miniapp("/subscription/purchase", rich, **fields)
    assert bought.status_code == 200, bought.text
    (sub,) = await rows(Subscription)
    assert (bought.json()["subscriptionId"], bought.json()["balanceKopeks"]) == (sub.id, 20_000 - PRICE)
    assert (sub.user_id, sub.traffic_limit_gb) == (rich.id, 10)
    (payment,) = await rows(Transaction)
    assert payment.type == "subscription_payment" and abs(payment.amount_kopeks) == PRICE


async def test_tariffs_show_what_a_switch_costs_now(miniapp, make_user, make_subscription, make_tariff):
    old = await make_tariff(period_prices={"30": 30_000})
    new = await make_tariff(period_prices={"30": 60_000})
    cheap = await make_tariff(period_prices={"30": 10_000})
    me = await make_user(balance_kopeks=50_000)
    await make_subscription(me, days=15.5, status="active", tariff_id=old.id)
    body = (await miniapp("/subscription/tariffs", me)).json()
    listed = {t["id"]: t for t in body["tariffs"]}
    assert body["current_tariff"]["id"] == old.id and listed[old.id]["switch_cost_kopeks"] is None
    up = listed[new.id]
    assert (up["switch_cost_kopeks"], up["is_upgrade"], up["is_switch_free"]) == (15_000, True, False)
    down = listed[cheap.id]
    assert (down["switch_cost_kopeks"], down["is_upgrade"], down["is_switch_free"]) == (0, False, True)
