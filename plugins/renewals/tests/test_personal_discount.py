"""A personal discount (a claimed promo offer) is in the renewal's price and consumed by the
renewal that used it, once."""

from __future__ import annotations

import pytest
from subsvc_promo_offers.discounts import set_active_discount

RENEW = "/cabinet/subscription/renew"


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["renewals", "promo_offers"]


async def test_the_offer_is_priced_and_consumed_once(db, cabinet, make_tariff, subscriber, balance_over_http):
    tariff = await make_tariff(period_prices={"30": 30_000})
    me = await subscriber(tariff=tariff, days=5, balance=100_000)
    async with db.session() as session:
        await set_active_discount(
            session, me.user.id, percent=20, source="promo_offer", offer_id=None, expires_at=None
        )
        await session.commit()
    async with cabinet(me.user.id) as http:
        (option,) = (await http.get("/cabinet/subscription/renewal-options")).json()
        assert (option["price_kopeks"], option["original_price_kopeks"], option["discount_percent"]) == (
            24_000,
            30_000,
            20,
        )
        first = await http.post(RENEW, json={"period_days": 30})
        assert first.status_code == 200, first.text
        body = first.json()
        assert (body["amount_paid_kopeks"], body["promo_discount_percent"]) == (24_000, 20)
        assert (body["promo_discount_amount_kopeks"], body["original_price_kopeks"]) == (6_000, 30_000)
        second = (await http.post(RENEW, json={"period_days": 30})).json()
        assert (second["amount_paid_kopeks"], second["promo_discount_percent"]) == (30_000, None)
    assert await balance_over_http(me.user) == 100_000 - 24_000 - 30_000
