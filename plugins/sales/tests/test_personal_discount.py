"""A claimed promo offer's discount (promo_offers, through pricing's personal discount) is taken
off a tariff purchase and consumed by its charge, in the purchase's transaction: consumed
once, kept when the purchase answers 402."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["sales", "panel_sync", "promo_offers"]


async def _claim(client, http, user_id: int, percent: int) -> None:
    body = {
        "user_id": user_id,
        "notification_type": "winback",
        "valid_hours": 24,
        "discount_percent": percent,
    }
    offer = await client.post("/promo-offers", json={**body, "extra_data": {"active_discount_hours": 5}})
    assert offer.status_code == 201, offer.text
    claimed = await http.post("/cabinet/promo/claim", json={"offer_id": offer.json()["id"]})
    assert claimed.status_code == 200, claimed.text


async def test_the_discount_is_charged_and_consumed_once(client, buyer, make_tariff):
    tariff = await make_tariff(period_prices={"30": 20_000})
    async with buyer(balance_kopeks=50_000) as (user, http):
        await _claim(client, http, user.id, 25)
        first = (
            await http.post(
                "/cabinet/subscription/purchase-tariff", json={"tariff_id": tariff.id, "period_days": 30}
            )
        ).json()
        assert (first["charged_amount"], first["promo_offer_discount_percent"]) == (15_000, 25)
        assert first["original_price_kopeks"] == 20_000
        assert (await http.get("/cabinet/promo/active-discount")).json()["discount_percent"] in (0, None)
        second = (
            await http.post(
                "/cabinet/subscription/purchase-tariff", json={"tariff_id": tariff.id, "period_days": 30}
            )
        ).json()
        assert (second["charged_amount"], second["promo_offer_discount_percent"]) == (20_000, 0)
        assert (await http.get("/cabinet/balance")).json()["balance_kopeks"] == 15_000


async def test_a_402_keeps_the_discount(client, buyer, make_tariff):
    tariff = await make_tariff(period_prices={"30": 20_000})
    async with buyer(balance_kopeks=1_000) as (user, http):
        await _claim(client, http, user.id, 25)
        short = await http.post(
            "/cabinet/subscription/purchase-tariff", json={"tariff_id": tariff.id, "period_days": 30}
        )
        assert (short.status_code, short.json()["detail"]["missing_amount"]) == (402, 14_000)
        assert (await http.get("/cabinet/promo/active-discount")).json()["discount_percent"] == 25
