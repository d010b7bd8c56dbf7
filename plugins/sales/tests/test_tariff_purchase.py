"""``POST /cabinet/subscription/purchase-tariff`` and the tariffs mode's purchase options, over
HTTP: a purchase debits and changes the subscription together; short, a 402 saves a cart that
a top-up completes once."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from subsvc.db import utcnow
from subsvc.testing import parse_utc


async def _buy(http, tariff_id, period_days=30, **more):
    return await http.post(
        "/cabinet/subscription/purchase-tariff",
        json={"tariff_id": tariff_id, "period_days": period_days, **more},
    )


async def test_buying_a_tariff_creates_a_paid_subscription(buyer, make_tariff, transactions_over_http):
    tariff = await make_tariff(name="Pro")
    async with buyer(balance_kopeks=50_000) as (user, http):
        response = await _buy(http, tariff.id)
        assert response.status_code == 200, response.text
        body = response.json()
        assert (body["success"], body["tariff_id"], body["tariff_name"]) == (True, tariff.id, "Pro")
        assert (body["charged_amount"], body["balance_kopeks"]) == (19_900, 30_100)
        assert body["charged_label"] == "199 ₽"
        sub = body["subscription"]
        assert (sub["tariff_id"], sub["is_trial"], sub["device_limit"], sub["traffic_limit_gb"]) == (
            tariff.id,
            False,
            2,
            100,
        )
        assert sub["connected_squads"] == ["squad-a"]
        ends = parse_utc(sub["end_date"])
        assert abs(ends - (utcnow() + timedelta(days=30))) < timedelta(minutes=1)
        current = (await http.get("/cabinet/subscription")).json()
        assert current["subscription"]["id"] == sub["id"]
        assert (await http.get("/cabinet/balance")).json()["balance_kopeks"] == 30_100
    [row] = await transactions_over_http(user)
    assert (row["type"], row["amount_kopeks"], row["payment_method"]) == (
        "subscription_payment",
        19_900,
        "balance",
    )


async def test_buying_the_same_tariff_again_extends_it(buyer, make_tariff):
    tariff = await make_tariff()
    async with buyer(balance_kopeks=100_000) as (_, http):
        first = (await _buy(http, tariff.id)).json()["subscription"]
        second = await _buy(http, tariff.id, 90)
        assert second.status_code == 200
        again = second.json()
        assert again["subscription"]["id"] == first["id"]
        assert again["charged_amount"] == 49_900
        gained = parse_utc(again["subscription"]["end_date"]) - parse_utc(first["end_date"])
        assert abs(gained - timedelta(days=90)) < timedelta(minutes=1)


@pytest.mark.parametrize(
    ("request_body", "status", "detail"),
    [
        ({"tariff_id": 999_999, "period_days": 30}, 404, "Tariff not found or inactive"),
        ({"period_days": 45}, 400, "Selected period is not available for this tariff"),
    ],
)
async def test_refusals_change_nothing(buyer, make_tariff, request_body, status, detail):
    tariff = await make_tariff()
    async with buyer(balance_kopeks=50_000) as (_, http):
        body = {"tariff_id": tariff.id, **request_body}
        response = await http.post("/cabinet/subscription/purchase-tariff", json=body)
        assert (response.status_code, response.json()) == (status, {"detail": detail})
        assert (await http.get("/cabinet/balance")).json()["balance_kopeks"] == 50_000
        assert (await http.get("/cabinet/subscription")).json()["has_subscription"] is False


async def test_an_inactive_tariff_is_not_sold(buyer, make_tariff):
    tariff = await make_tariff(is_active=False)
    async with buyer(balance_kopeks=50_000) as (_, http):
        response = await _buy(http, tariff.id)
        assert (response.status_code, response.json()["detail"]) == (404, "Tariff not found or inactive")


@pytest.mark.sales_env(SALES_MODE="classic")
async def test_classic_mode_sells_no_tariff(buyer, make_tariff):
    tariff = await make_tariff()
    async with buyer(balance_kopeks=50_000) as (_, http):
        response = await _buy(http, tariff.id)
        assert (response.status_code, response.json()["detail"]) == (400, "Tariffs mode is not enabled")


async def test_short_balance_answers_402_and_keeps_everything(buyer, make_tariff, transactions_over_http):
    tariff = await make_tariff()
    async with buyer(balance_kopeks=5_000) as (user, http):
        response = await _buy(http, tariff.id)
        assert response.status_code == 402
        assert response.json() == {
            "detail": {
                "code": "insufficient_funds",
                "message": "Недостаточно средств. Не хватает 149 ₽",
                "missing_amount": 14_900,
                "cart_saved": True,
                "cart_mode": "tariff_purchase",
            }
        }
        assert (await http.get("/cabinet/balance")).json()["balance_kopeks"] == 5_000
        assert (await http.get("/cabinet/subscription")).json()["has_subscription"] is False
    assert await transactions_over_http(user) == []


@pytest.mark.sales_env(AUTO_PURCHASE_AFTER_TOPUP_ENABLED="true")
async def test_a_top_up_completes_the_saved_purchase_once(
    app, buyer, make_tariff, new_payment, credit, wait_for, transactions_over_http
):
    from subsvc_sales.carts import complete_carts

    tariff = await make_tariff()
    async with buyer(balance_kopeks=5_000) as (user, http):
        assert (await _buy(http, tariff.id)).status_code == 402
        await new_payment(user.id, 20_000, provider_payment_id="topup-1")
        assert (await credit("topup-1", 20_000)).credited

        async def bought():
            found = (await http.get("/cabinet/subscription")).json()
            return found if found["has_subscription"] else None

        found = await wait_for(bought)
        assert found["subscription"]["tariff_id"] == tariff.id
        # the event delivered again, twice at once: nothing more is bought
        await asyncio.gather(complete_carts(app, user.id), complete_carts(app, user.id))
        await credit("topup-1", 20_000)  # the provider's notification again: credited once
        assert (await http.get("/cabinet/balance")).json()["balance_kopeks"] == 5_100
    types = sorted(row["type"] for row in await transactions_over_http(user))
    assert types == ["deposit", "subscription_payment"]


async def test_purchase_options_list_the_tariffs_at_the_buyers_price(buyer, make_tariff):
    await make_tariff(name="Basic", period_prices={"30": 10_000, "90": -1})
    await make_tariff(name="Hidden", is_active=False)
    async with buyer(balance_kopeks=12_345) as (_, http):
        response = await http.get("/cabinet/subscription/purchase-options")
        assert response.status_code == 200
        body = response.json()
    assert body["sales_mode"] == "tariffs"
    assert (body["balance_kopeks"], body["balance_label"]) == (12_345, "123.45 ₽")
    assert (body["has_subscription"], body["current_tariff_id"], body["subscription_status"]) == (
        False,
        None,
        None,
    )
    [basic] = body["tariffs"]
    assert basic["name"] == "Basic"
    [period] = basic["periods"]
    assert (period["days"], period["price_kopeks"], period["price_per_month_kopeks"]) == (30, 10_000, 10_000)
    assert period["discount_percent"] is None


async def test_purchase_options_of_an_unknown_subscription_is_404(buyer):
    async with buyer() as (_, http):
        response = await http.get("/cabinet/subscription/purchase-options", params={"subscription_id": 12345})
        assert (response.status_code, response.json()) == (404, {"detail": "Subscription not found"})


async def test_tariffs_mode_refuses_classic_purchases(buyer):
    text = "This endpoint is not available in tariffs mode. Use /purchase-tariff instead."
    async with buyer(balance_kopeks=100_000) as (_, http):
        for path in ("/cabinet/subscription/purchase-preview", "/cabinet/subscription/purchase"):
            response = await http.post(path, json={"selection": {"period_days": 30, "servers": ["squad-a"]}})
            assert (response.status_code, response.json()) == (400, {"detail": text})


async def test_a_daily_tariff_is_bought_for_one_day(buyer, make_tariff):
    tariff = await make_tariff(is_daily=True, daily_price_kopeks=1_500, period_prices={})
    async with buyer(balance_kopeks=1_000) as (_, http):
        short = await _buy(http, tariff.id, 30)
        assert (short.status_code, short.json()["detail"]["cart_mode"]) == (402, "daily_tariff_purchase")
    async with buyer(balance_kopeks=10_000) as (_, http):
        response = await _buy(http, tariff.id, 30)
        assert response.status_code == 200, response.text
        body = response.json()
    assert (body["charged_amount"], body["balance_kopeks"]) == (1_500, 8_500)
    ends = parse_utc(body["subscription"]["end_date"])
    assert abs(ends - (utcnow() + timedelta(days=1))) < timedelta(minutes=1)


@pytest.mark.sales_env(MULTI_TARIFF_ENABLED="true")
async def test_multi_tariff_holds_one_subscription_per_tariff(buyer, make_tariff):
    basic, pro = await make_tariff(name="Basic"), await make_tariff(name="Pro")
    async with buyer(balance_kopeks=100_000) as (_, http):
        first = (await _buy(http, basic.id)).json()["subscription"]
        second = (await _buy(http, pro.id)).json()["subscription"]
        assert first["id"] != second["id"]
        again = await _buy(http, basic.id, subscription_id=second["id"])  # names Pro's: Basic's is meant
        assert again.status_code == 200
        assert again.json()["subscription"]["id"] == first["id"]
        options = (await http.get("/cabinet/subscription/purchase-options")).json()
    assert options["all_tariffs_purchased"] is True
    assert {t["name"]: t["is_purchased"] for t in options["tariffs"]} == {"Basic": True, "Pro": True}


@pytest.mark.sales_env(TARIFF_SWITCH_UPGRADE_ENABLED="false")
async def test_purchase_options_tell_which_switches_are_sold(buyer, make_tariff):
    await make_tariff(name="Basic")
    async with buyer() as (_, http):
        body = (await http.get("/cabinet/subscription/purchase-options")).json()
    switches = {
        key: body[key]
        for key in (
            "tariff_switch_upgrade_enabled",
            "tariff_switch_downgrade_enabled",
            "platega_recurrent_enabled",
            "lava_recurrent_enabled",
        )
    }
    assert switches == {
        "tariff_switch_upgrade_enabled": False,
        "tariff_switch_downgrade_enabled": True,
        "platega_recurrent_enabled": False,  # the recurrent plugin answers 503 for now
        "lava_recurrent_enabled": False,
    }
