"""``GET /cabinet/subscription/trial`` and ``POST /cabinet/subscription/trial`` over HTTP: one
trial per user, even when 20 activations race."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from subsvc.db import utcnow
from subsvc.testing import parse_utc


async def test_a_new_user_may_take_a_trial_once(buyer):
    async with buyer() as (_, http):
        info = await http.get("/cabinet/subscription/trial")
        assert info.status_code == 200
        assert info.json() == {
            "is_available": True,
            "duration_days": 3,
            "traffic_limit_gb": 10,
            "device_limit": 2,
            "requires_payment": False,
            "price_kopeks": 0,
            "price_rubles": 0.0,
            "reason_unavailable": None,
        }
        taken = await http.post("/cabinet/subscription/trial")
        assert taken.status_code == 200, taken.text
        sub = taken.json()
        assert (sub["is_trial"], sub["traffic_limit_gb"], sub["device_limit"]) == (True, 10, 2)
        assert abs(parse_utc(sub["end_date"]) - (utcnow() + timedelta(days=3))) < timedelta(minutes=1)
        again = await http.post("/cabinet/subscription/trial", json={})
        assert (again.status_code, again.json()) == (400, {"detail": "Trial already used"})
        info = (await http.get("/cabinet/subscription/trial")).json()
        assert (info["is_available"], info["reason_unavailable"]) == (False, "Trial already used")


async def test_the_trial_tariff_gives_its_terms(buyer, make_tariff):
    await make_tariff(
        is_trial_available=True, traffic_limit_gb=5, device_limit=1, allowed_squads=["trial-sq"]
    )
    async with buyer() as (_, http):
        sub = (await http.post("/cabinet/subscription/trial")).json()
    assert (sub["traffic_limit_gb"], sub["device_limit"], sub["connected_squads"]) == (5, 1, ["trial-sq"])


async def test_a_paying_subscriber_gets_no_trial(buyer, make_tariff):
    tariff = await make_tariff()
    async with buyer(balance_kopeks=50_000) as (_, http):
        bought = await http.post(
            "/cabinet/subscription/purchase-tariff", json={"tariff_id": tariff.id, "period_days": 30}
        )
        assert bought.status_code == 200
        refused = await http.post("/cabinet/subscription/trial")
        assert (refused.status_code, refused.json()["detail"]) == (
            400,
            "You already have an active subscription",
        )


@pytest.mark.sales_env(TRIAL_PAYMENT_ENABLED="true", TRIAL_ACTIVATION_PRICE="5000")
async def test_a_paid_trial_is_charged_from_the_balance(buyer, transactions_over_http):
    async with buyer(balance_kopeks=4_000) as (user, http):
        info = (await http.get("/cabinet/subscription/trial")).json()
        assert (info["requires_payment"], info["price_kopeks"], info["price_rubles"]) == (True, 5_000, 50.0)
        short = await http.post("/cabinet/subscription/trial")
        assert (short.status_code, short.json()) == (400, {"detail": "Insufficient balance. Need 50.00 RUB"})
    async with buyer(balance_kopeks=6_000) as (user, http):
        assert (await http.post("/cabinet/subscription/trial")).status_code == 200
        assert (await http.get("/cabinet/balance")).json()["balance_kopeks"] == 1_000
    [row] = await transactions_over_http(user)
    assert (row["type"], row["amount_kopeks"]) == ("subscription_payment", 5_000)


async def test_twenty_concurrent_activations_make_one_trial(postgres, buyer, cabinet, client):
    async with buyer() as (user, _):
        clients = [cabinet(user.id) for _ in range(20)]
        try:
            if postgres:
                answers = await asyncio.gather(*(c.post("/cabinet/subscription/trial") for c in clients))
            else:  # SQLite serializes writers: the requests are made one after another
                answers = [await c.post("/cabinet/subscription/trial") for c in clients]
        finally:
            for c in clients:
                await c.aclose()
        statuses = sorted(a.status_code for a in answers)
        assert statuses == [200] + [400] * 19
        assert {a.json()["detail"] for a in answers if a.status_code == 400} == {"Trial already used"}
    found = (await client.get(f"/users/{user.messenger_id}")).json()
    assert [s["is_trial"] for s in found["subscriptions"]] == [True]
