"""A claimed offer's discount as the buyer's personal discount in pricing (its hooks): read by
``buyer_of`` while it lasts, consumed once by a purchase's transaction (rolled back with it),
one winner of two purchases at once; and as the "other" discount that refuses a discount code."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlmodel import select
from subsvc_pricing.api import buyer_of, consume_personal_discount, personal_discount
from subsvc_promo_offers.models import ActiveDiscount, PromoOfferLog
from subsvc_users.models import User

from subsvc.db import utcnow

WEB = "/promo-offers"
CABINET = "/cabinet/promo"


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["promo_offers", "pricing", "promocodes"]


async def _claimed(client, member, user_id: int, percent: int, **extra) -> dict:
    body = {"user_id": user_id, "notification_type": "winback", "valid_hours": 24}
    offer = await client.post(WEB, json={**body, "discount_percent": percent, "extra_data": extra})
    assert offer.status_code == 201, offer.text
    claimed = await member.post(f"{CABINET}/claim", json={"offer_id": offer.json()["id"]})
    assert claimed.status_code == 200, claimed.text
    return claimed.json()


async def _consume(app, db, user_id: int, *, commit: bool = True) -> int:
    async with db.session() as session:
        percent = await consume_personal_discount(app, session, user_id, context="tariff_purchase")
        if commit:
            await session.commit()
        return percent


async def test_the_buyer_holds_the_claimed_discount_until_it_is_consumed(
    app, db, client, member, member_user, rows
):
    claimed = await _claimed(client, member, member_user.id, 20, active_discount_hours=5)
    async with db.session() as session:
        buyer = await buyer_of(app, session, member_user.id)
    assert buyer is not None and buyer.personal is not None
    assert (buyer.personal.percent, buyer.personal.source) == (20, "promo_offer")
    assert buyer.personal.expires_at is not None
    assert buyer.personal.expires_at.isoformat() == claimed["expires_at"].replace("Z", "+00:00")

    assert await _consume(app, db, member_user.id) == 20
    assert await _consume(app, db, member_user.id) == 0
    (log,) = await rows(PromoOfferLog, action="consumed")
    assert (log.user_id, log.percent, log.details) == (member_user.id, 20, {"context": "tariff_purchase"})
    async with db.session() as session:
        assert await personal_discount(app, session, member_user.id) is None
    assert (await member.get(f"{CABINET}/active-discount")).json()["is_active"] is False


async def test_a_discount_without_an_end_holds(app, db, client, member, member_user):
    await _claimed(client, member, member_user.id, 7)
    async with db.session() as session:
        found = await personal_discount(app, session, member_user.id)
    assert found is not None and (found.percent, found.expires_at) == (7, None)


async def test_an_expired_discount_is_neither_held_nor_consumed(app, db, client, member, member_user, rows):
    await _claimed(client, member, member_user.id, 20, active_discount_hours=1)
    async with db.session() as session:
        row = await session.get(ActiveDiscount, member_user.id)
        row.expires_at = utcnow() - timedelta(seconds=1)
        await session.commit()
    async with db.session() as session:
        assert await personal_discount(app, session, member_user.id) is None
    assert await _consume(app, db, member_user.id) == 0
    assert await rows(PromoOfferLog, action="consumed") == []


async def test_a_purchase_rolled_back_keeps_the_discount(app, db, client, member, member_user, rows, reload):
    await _claimed(client, member, member_user.id, 15)
    assert await _consume(app, db, member_user.id, commit=False) == 15  # the session closes: rolled back
    assert (await reload(ActiveDiscount, member_user.id)).discount_percent == 15
    assert await rows(PromoOfferLog, action="consumed") == []
    assert await _consume(app, db, member_user.id) == 15


async def test_of_two_purchases_at_once_one_consumes_the_discount(app, db, client, member, member_user, rows):
    """The first purchase's transaction consumes it and is still open when the second asks:
    the second waits for the first's commit (PostgreSQL: the row lock; SQLite: the write
    lock), then finds nothing to consume."""
    await _claimed(client, member, member_user.id, 25)
    async with db.session() as first:
        assert await consume_personal_discount(app, first, member_user.id, context="first") == 25
        second = asyncio.create_task(_consume(app, db, member_user.id))
        await asyncio.sleep(0.2)  # the second's DELETE reaches the database and waits
        assert not second.done()
        await first.commit()
    assert await asyncio.wait_for(second, 10) == 0
    (log,) = await rows(PromoOfferLog, action="consumed")
    assert log.details == {"context": "first"}


async def test_many_purchases_at_once_consume_it_once(app, db, client, member, member_user, rows):
    await _claimed(client, member, member_user.id, 30)
    results = await asyncio.gather(*(_consume(app, db, member_user.id) for _ in range(6)))
    assert sorted(results) == [0, 0, 0, 0, 0, 30]
    assert len(await rows(PromoOfferLog, action="consumed")) == 1


async def test_a_claimed_discount_refuses_a_discount_code(app, db, client, member, member_user, admin, rows):
    await _claimed(client, member, member_user.id, 10)
    code = {"code": "SALE", "type": "discount", "balance_bonus_kopeks": 30, "subscription_days": 24}
    assert (await admin.post("/cabinet/admin/promocodes", json=code)).status_code == 201
    response = await member.post("/cabinet/promocode/activate", json={"code": "SALE"})
    assert (response.status_code, response.json()["detail"]) == (
        400,
        "You already have an active discount. Deactivate it first via /deactivate-discount",
    )
    cleared = await admin.post(f"/cabinet/admin/promocodes/deactivate-discount/{member_user.id}")
    assert cleared.status_code == 200
    assert (cleared.json()["discount_percent"], cleared.json()["deactivated_code"]) == (10, None)
    (log,) = await rows(PromoOfferLog, action="disabled")
    assert (log.percent, log.details) == (10, {"context": "admin_deactivate"})
    assert (await member.post("/cabinet/promocode/activate", json={"code": "SALE"})).status_code == 200
    async with db.session() as session:
        found = await personal_discount(app, session, member_user.id)
    assert found is not None and (found.percent, found.source) == (30, "promocode")


async def test_the_offer_holds_over_an_earlier_code_and_the_code_waits(
    app, db, client, member, member_user, admin
):
    """A code's discount first, then a claimed offer: the offer's is the buyer's (the reference
    overwrote the code's); once it is consumed the code's is next."""
    code = {"code": "EARLY", "type": "discount", "balance_bonus_kopeks": 5, "subscription_days": 0}
    assert (await admin.post("/cabinet/admin/promocodes", json=code)).status_code == 201
    assert (await member.post("/cabinet/promocode/activate", json={"code": "EARLY"})).status_code == 200
    await _claimed(client, member, member_user.id, 40)
    async with db.session() as session:
        found = await personal_discount(app, session, member_user.id)
    assert found is not None and (found.percent, found.source) == (40, "promo_offer")
    assert await _consume(app, db, member_user.id) == 40
    async with db.session() as session:
        found = await personal_discount(app, session, member_user.id)
    assert found is not None and (found.percent, found.source) == (5, "promocode")
    assert await _consume(app, db, member_user.id) == 5
    assert await _consume(app, db, member_user.id) == 0


async def test_consuming_takes_the_users_row_before_the_discounts(app, db, client, member, member_user):
    """As the deactivations and a purchase's debit do: a transaction holding the user's row
    (PostgreSQL) makes the consume wait, so they never wait on each other crosswise."""
    if db.dialect != "postgresql":
        pytest.skip("SQLite has one writer and no row locks")
    await _claimed(client, member, member_user.id, 12)
    async with db.session() as holder:
        await holder.exec(select(User.id).where(User.id == member_user.id).with_for_update())
        waiting = asyncio.create_task(_consume(app, db, member_user.id))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        await holder.commit()
    assert await asyncio.wait_for(waiting, 10) == 12
