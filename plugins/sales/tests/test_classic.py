"""Classic mode over HTTP: ``POST /purchase-preview`` and ``POST /purchase`` (the default
tables: 30 days 99 ₽, 10 GB 35 ₽ a month, one device included), the classic purchase
options, a trial converted without its remaining time counted twice, and a 402 cart
completed by a top-up."""

from __future__ import annotations

from datetime import timedelta

import pytest

from subsvc.db import utcnow
from subsvc.testing import parse_utc

pytestmark = pytest.mark.sales_env(SALES_MODE="classic")
SELECTION = {"period_days": 30, "traffic_value": 10, "servers": ["squad-a"], "devices": 1}
PRICE = 9_900 + 5_000 + 3_500  # period + the server a month + the 10 GB tier a month


@pytest.fixture(autouse=True)
async def server(make_server):
    return await make_server("squad-a", price_kopeks=5_000)


async def test_the_preview_prices_the_selection(buyer):
    async with buyer(balance_kopeks=10_000) as (_, http):
        response = await http.post("/cabinet/subscription/purchase-preview", json={"selection": SELECTION})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["total_price_kopeks"], body["original_price_kopeks"], body["discount_percent"]) == (
        PRICE,
        PRICE,
        0,
    )
    assert (body["missing_amount_kopeks"], body["can_purchase"]) == (PRICE - 10_000, False)
    assert {line["kind"]: line["price_kopeks"] for line in body["breakdown"]} == {
        "period": 9_900,
        "servers": 5_000,
        "traffic": 3_500,
        "devices": 0,
    }


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ({"period_days": 45}, "Invalid or missing subscription period"),
        ({"period_days": None}, "Invalid or missing subscription period"),
        ({"traffic_value": 7}, "Selected traffic option is not available"),
        ({"servers": []}, "Select at least one server"),
        ({"servers": ["nowhere"]}, "Some selected servers are not available"),
    ],
)
async def test_a_selection_not_on_sale_is_400(buyer, change, detail):
    async with buyer(balance_kopeks=100_000) as (_, http):
        for path in ("/cabinet/subscription/purchase-preview", "/cabinet/subscription/purchase"):
            response = await http.post(path, json={"selection": {**SELECTION, **change}})
            assert (response.status_code, response.json()) == (400, {"detail": detail})
        assert (await http.get("/cabinet/balance")).json()["balance_kopeks"] == 100_000


async def test_a_purchase_creates_a_paid_subscription(buyer, transactions_over_http):
    async with buyer(balance_kopeks=20_000) as (user, http):
        response = await http.post("/cabinet/subscription/purchase", json={"selection": SELECTION})
        assert response.status_code == 200, response.text
        body = response.json()
    assert (body["success"], body["was_trial_conversion"], body["balance_kopeks"]) == (
        True,
        False,
        20_000 - PRICE,
    )
    sub = body["subscription"]
    assert (sub["is_trial"], sub["tariff_id"], sub["traffic_limit_gb"], sub["connected_squads"]) == (
        False,
        None,
        10,
        ["squad-a"],
    )
    [row] = await transactions_over_http(user)
    assert (row["type"], row["amount_kopeks"]) == ("subscription_payment", PRICE)


async def test_a_trial_converted_starts_now_without_its_time_counted_again(buyer):
    async with buyer(balance_kopeks=20_000) as (_, http):
        trial = (await http.post("/cabinet/subscription/trial")).json()
        response = await http.post("/cabinet/subscription/purchase", json={"selection": SELECTION})
        body = response.json()
    assert body["was_trial_conversion"] is True
    assert body["subscription"]["id"] == trial["id"]
    ends = parse_utc(body["subscription"]["end_date"])
    assert abs(ends - (utcnow() + timedelta(days=30))) < timedelta(minutes=1)  # not 30 + the trial's 3


async def test_classic_options_offer_the_tables(buyer):
    async with buyer(balance_kopeks=1_000) as (_, http):
        body = (await http.get("/cabinet/subscription/purchase-options")).json()
    assert body["sales_mode"] == "classic"
    assert [p["days"] for p in body["periods"]] == [14, 30, 60, 90, 180, 360]
    assert body["servers"]["options"][0]["uuid"] == "squad-a"
    assert body["selection"]["servers"] == ["squad-a"]
    assert body["traffic"]["selectable"] is True


@pytest.mark.sales_env(SALES_MODE="classic", AUTO_PURCHASE_AFTER_TOPUP_ENABLED="true")
async def test_short_a_cart_is_saved_and_a_top_up_buys_it(buyer, new_payment, credit, wait_for):
    async with buyer(balance_kopeks=1_000) as (user, http):
        response = await http.post("/cabinet/subscription/purchase", json={"selection": SELECTION})
        assert response.status_code == 402
        detail = response.json()["detail"]
        assert (detail["cart_saved"], detail["cart_mode"], detail["missing_amount"]) == (
            True,
            "subscription_purchase",
            PRICE - 1_000,
        )
        await new_payment(user.id, 20_000, provider_payment_id="classic-1")
        await credit("classic-1", 20_000)

        async def bought():
            return (await http.get("/cabinet/subscription")).json()["has_subscription"]

        await wait_for(bought)
        assert (await http.get("/cabinet/balance")).json()["balance_kopeks"] == 21_000 - PRICE
