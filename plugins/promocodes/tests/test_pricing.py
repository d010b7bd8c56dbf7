"""A discount code's discount as the buyer's personal discount in pricing (its hooks): read by
``buyer_of`` while it holds (for its hours, or until the first purchase), consumed once by a
purchase's transaction (rolled back with it), one winner of two purchases at once."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlmodel import select
from subsvc_pricing.api import buyer_of, consume_personal_discount, personal_discount
from subsvc_promocodes.models import PromoCode, PromoCodeDiscount, PromoCodeUse
from subsvc_users.models import User

from subsvc.db import utcnow

ACTIVATE = "/cabinet/promocode/activate"


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["promocodes", "pricing"]


@pytest.fixture
def activated(make_user, make_code, cabinet):
    """``await activated(percent, hours)``: a new user who activated a discount code through the
    cabinet; the user's id."""

    async def activate(percent: int, hours: int) -> int:
        user = await make_user()
        code = await make_code(type="discount", balance_bonus_kopeks=percent, subscription_days=hours)
        async with cabinet(user["id"]) as http:
            response = await http.post(ACTIVATE, json={"code": code["code"]})
        assert response.status_code == 200, response.text
        return int(user["id"])

    return activate


async def _consume(app, db, user_id: int, *, commit: bool = True) -> int:
    async with db.session() as session:
        percent = await consume_personal_discount(app, session, user_id, context="tariff_purchase")
        if commit:
            await session.commit()
        return percent


async def test_the_buyer_holds_the_codes_discount_for_its_hours(app, db, activated, rows):
    before = utcnow()
    user_id = await activated(20, 48)
    async with db.session() as session:
        buyer = await buyer_of(app, session, user_id)
    assert buyer is not None and buyer.personal is not None
    assert (buyer.personal.percent, buyer.personal.source) == (20, "promocode")
    assert before + timedelta(hours=48) <= buyer.personal.expires_at <= utcnow() + timedelta(hours=48)

    assert await _consume(app, db, user_id) == 20
    assert await rows(PromoCodeDiscount) == []
    (use,) = await rows(PromoCodeUse)  # the activation stays: the code was used
    assert use.user_id == user_id
    (code,) = await rows(PromoCode)
    assert code.current_uses == 1
    assert await _consume(app, db, user_id) == 0
    async with db.session() as session:
        assert await personal_discount(app, session, user_id) is None


async def test_a_discount_until_the_first_purchase_holds_until_then(app, db, activated):
    user_id = await activated(35, 0)
    async with db.session() as session:
        found = await personal_discount(app, session, user_id)
    assert found is not None and (found.percent, found.expires_at) == (35, None)
    assert await _consume(app, db, user_id) == 35
    async with db.session() as session:
        assert await personal_discount(app, session, user_id) is None


async def test_an_expired_discount_is_neither_held_nor_consumed(app, db, activated, rows):
    user_id = await activated(10, 1)
    async with db.session() as session:
        await session.exec(
            PromoCodeDiscount.__table__.update().values(expires_at=utcnow() - timedelta(seconds=1))
        )
        await session.commit()
    async with db.session() as session:
        assert await personal_discount(app, session, user_id) is None
    assert await _consume(app, db, user_id) == 0
    assert len(await rows(PromoCodeDiscount)) == 1  # left as it was


async def test_a_purchase_rolled_back_keeps_the_discount(app, db, activated, rows):
    user_id = await activated(15, 0)
    assert await _consume(app, db, user_id, commit=False) == 15  # the session closes: rolled back
    assert len(await rows(PromoCodeDiscount)) == 1
    assert await _consume(app, db, user_id) == 15


async def test_of_two_purchases_at_once_one_consumes_the_discount(app, db, activated):
    """The first purchase's transaction consumes it and is still open when the second asks:
    the second waits for the first's commit (PostgreSQL: the row lock; SQLite: the write
    lock), then finds nothing to consume."""
    user_id = await activated(25, 0)
    async with db.session() as first:
        assert await consume_personal_discount(app, first, user_id, context="first") == 25
        second = asyncio.create_task(_consume(app, db, user_id))
        await asyncio.sleep(0.2)  # the second's DELETE reaches the database and waits
        assert not second.done()
        await first.commit()
    assert await asyncio.wait_for(second, 10) == 0


async def test_many_purchases_at_once_consume_it_once(app, db, activated, rows):
    user_id = await activated(30, 24)
    results = await asyncio.gather(*(_consume(app, db, user_id) for _ in range(6)))
    assert sorted(results) == [0, 0, 0, 0, 0, 30]
    assert await rows(PromoCodeDiscount) == []


async def test_another_users_discount_is_not_the_buyers(app, db, activated, make_user):
    await activated(50, 0)
    other = await make_user()
    async with db.session() as session:
        buyer = await buyer_of(app, session, other["id"])
    assert buyer is not None and buyer.personal is None
    assert await _consume(app, db, other["id"]) == 0


async def test_consuming_takes_the_users_row_before_the_discounts(app, db, activated):
    """As activations, deactivations and a purchase's debit do: a transaction holding the
    user's row (PostgreSQL) makes the consume wait, so they never wait on each other crosswise."""
    if db.dialect != "postgresql":
        pytest.skip("SQLite has one writer and no row locks")
    user_id = await activated(12, 0)
    async with db.session() as holder:
        await holder.exec(select(User.id).where(User.id == user_id).with_for_update())
        waiting = asyncio.create_task(_consume(app, db, user_id))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        await holder.commit()
    assert await asyncio.wait_for(waiting, 10) == 12
