"""The kernel every seller codes against: charge() in the caller's transaction, the 402 answer,
saved carts and their completion after a top-up (exactly once)."""

from __future__ import annotations

import asyncio
import sys
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import col, select
from starlette.applications import Starlette
from subsvc_sales.api import Charged, InsufficientFunds, charge, drop_cart, payment_required, save_cart
from subsvc_sales.models import SalesCart

from subsvc.api import HTTPError
from subsvc.db import Database, utcnow
from subsvc.events import Event
from subsvc.hookspecs import hookimpl
from subsvc.services import services

COMPLETED: list[dict[str, Any]] = []


@hookimpl
async def sales_complete_cart(
    app: Starlette,
    session: Any,
    user_id: int,
    mode: str,
    payload: dict[str, Any],
    subscription_id: int | None,
) -> bool | None:
    """A test seller of ``extend`` carts: charges the payload's price (False when short)."""
    if mode != "extend":
        return None
    try:
        await charge(app, session, user_id, int(payload["price"]), description="test extend")
    except InsufficientFunds:
        return False
    COMPLETED.append({"user_id": user_id, "subscription_id": subscription_id, **payload})
    return True


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["sales", "panel_sync", "payments", sys.modules[__name__]]


@pytest.fixture(autouse=True)
def completed():
    COMPLETED.clear()
    yield COMPLETED
    COMPLETED.clear()


async def _charge(app: Starlette, db: Database, user_id: int, amount: int, **options: Any) -> Charged:
    async with db.session() as session:
        charged = await charge(app, session, user_id, amount, description="test purchase", **options)
        await session.commit()
        return charged


async def test_a_charge_debits_and_records_a_subscription_payment(
    app, db, make_user, balance_over_http, transactions_over_http
):
    user = await make_user(balance_kopeks=50_000)
    charged = await _charge(app, db, user.id, 19_900)
    assert (charged.amount_kopeks, charged.balance_kopeks, charged.personal_percent) == (19_900, 30_100, 0)
    assert await balance_over_http(user) == 30_100
    [row] = await transactions_over_http(user)
    assert row["id"] == charged.transaction_id
    assert (row["type"], row["amount_kopeks"], row["payment_method"]) == (
        "subscription_payment",
        19_900,
        "balance",
    )
    assert row["description"] == "test purchase"


async def test_a_charge_above_the_balance_changes_nothing(
    app, db, make_user, balance_over_http, transactions_over_http
):
    user = await make_user(balance_kopeks=5_000)
    with pytest.raises(InsufficientFunds) as raised:
        await _charge(app, db, user.id, 19_900)
    error = raised.value
    assert (error.required_kopeks, error.balance_kopeks, error.missing_kopeks) == (19_900, 5_000, 14_900)
    assert await balance_over_http(user) == 5_000
    assert await transactions_over_http(user) == []


async def test_a_free_charge_records_a_row_only_when_asked(app, db, make_user, transactions_over_http):
    user = await make_user(balance_kopeks=0)
    free = await _charge(app, db, user.id, 0)
    assert (free.transaction_id, free.balance_kopeks) == (None, 0)
    assert await transactions_over_http(user) == []
    recorded = await _charge(app, db, user.id, 0, record_free=True)
    [row] = await transactions_over_http(user)
    assert (row["id"], row["amount_kopeks"], row["type"]) == (
        recorded.transaction_id,
        0,
        "subscription_payment",
    )


async def test_concurrent_charges_never_overdraw(
    app, db, make_user, balance_over_http, transactions_over_http
):
    user = await make_user(balance_kopeks=1_000)

    async def one() -> bool:
        try:
            await _charge(app, db, user.id, 300)
        except InsufficientFunds:
            return False
        return True

    outcomes = await asyncio.gather(*(one() for _ in range(8)))
    assert outcomes.count(True) == 3
    assert await balance_over_http(user) == 100
    assert len(await transactions_over_http(user)) == 3


def test_the_402_answer_carries_the_references_fields():
    answer = payment_required(InsufficientFunds(19_900, 5_000), cart_saved=True, cart_mode="tariff_purchase")
    assert isinstance(answer, HTTPError)
    assert answer.status_code == 402
    assert answer.detail == {
        "code": "insufficient_funds",
        "message": "Недостаточно средств. Не хватает 149 ₽",
        "missing_amount": 14_900,
        "cart_saved": True,
        "cart_mode": "tariff_purchase",
    }


async def _carts(db: Database, user_id: int) -> list[tuple[int, str, dict[str, Any]]]:
    async with db.session() as session:
        query = (
            select(SalesCart)
            .where(col(SalesCart.user_id) == user_id)
            .order_by(col(SalesCart.subscription_key))
        )
        return [
            (cart.subscription_key, cart.mode, cart.payload) for cart in (await session.exec(query)).all()
        ]


async def test_one_cart_per_user_and_subscription_the_newest_replacing(app, db, make_user):
    user = await make_user()
    async with db.session() as session:
        await save_cart(app, session, user.id, "tariff_purchase", {"tariff_id": 1, "period_days": 30})
        await save_cart(app, session, user.id, "extend", {"period_days": 30}, subscription_id=7)
        await save_cart(app, session, user.id, "tariff_purchase", {"tariff_id": 2, "period_days": 90})
        await session.commit()
    assert await _carts(db, user.id) == [
        (0, "tariff_purchase", {"tariff_id": 2, "period_days": 90}),
        (7, "extend", {"period_days": 30}),
    ]
    async with db.session() as session:
        await drop_cart(app, session, user.id, subscription_id=7)
        await session.commit()
    assert [key for key, _, _ in await _carts(db, user.id)] == [0]


async def _save_extend_cart(app: Starlette, db: Database, user_id: int, price: int, **options: Any) -> None:
    """Save and commit an ``extend`` cart of ``price`` (the test seller's mode)."""
    async with db.session() as session:
        await save_cart(app, session, user_id, "extend", {"price": price}, **options)
        await session.commit()


async def _top_up(new_payment, credit, user_id: int, amount: int, reference: str) -> None:
    await new_payment(user_id, amount, provider_payment_id=reference)
    outcome = await credit(reference, amount)
    assert outcome.credited


async def _deliver_again(app: Starlette, db: Database) -> None:
    """Hand the last ``balance.topped_up`` of the outbox to its subscribers once more (at
    least once delivery: a dispatcher restarted before marking it dispatched)."""
    from subsvc.events import OutboxEvent

    async with db.session() as session:
        query = select(OutboxEvent).where(col(OutboxEvent.event_type) == "balance.topped_up")
        row = (await session.exec(query.order_by(col(OutboxEvent.id).desc()))).first()
    assert row is not None and row.id is not None
    event = Event(row.id, row.event_type, row.payload, row.created_at)
    for subscriber in services(app).events.subscribers["balance.topped_up"]:
        result = subscriber(event)
        if result is not None:
            await result


@pytest.mark.sales_env(AUTO_PURCHASE_AFTER_TOPUP_ENABLED="true")
async def test_a_top_up_completes_the_cart_once(
    app, db, make_user, new_payment, credit, wait_for, completed, balance_over_http, transactions_over_http
):
    user = await make_user(balance_kopeks=5_000)
    await _save_extend_cart(app, db, user.id, 19_900, subscription_id=5)
    await _top_up(new_payment, credit, user.id, 20_000, "p-1")
    await wait_for(lambda: completed)

    async def cart_gone() -> bool:
        return await _carts(db, user.id) == []

    await wait_for(cart_gone)  # committed with the purchase
    assert completed == [{"user_id": user.id, "subscription_id": 5, "price": 19_900}]
    await _deliver_again(app, db)
    await asyncio.gather(_deliver_again(app, db), _deliver_again(app, db))
    assert len(completed) == 1
    assert await balance_over_http(user) == 5_100
    types = [row["type"] for row in await transactions_over_http(user)]
    assert sorted(types) == ["deposit", "subscription_payment"]


@pytest.mark.sales_env(AUTO_PURCHASE_AFTER_TOPUP_ENABLED="true")
async def test_a_top_up_still_short_keeps_the_cart(
    app, db, make_user, new_payment, credit, balance_over_http
):
    user = await make_user(balance_kopeks=0)
    await _save_extend_cart(app, db, user.id, 19_900)
    await _top_up(new_payment, credit, user.id, 10_000, "p-2")
    await _deliver_again(app, db)
    assert await _carts(db, user.id) == [(0, "extend", {"price": 19_900})]
    assert await balance_over_http(user) == 10_000


async def test_without_auto_purchase_a_top_up_leaves_the_cart(
    app, db, make_user, new_payment, credit, completed
):
    user = await make_user(balance_kopeks=0)
    await _save_extend_cart(app, db, user.id, 100)
    await _top_up(new_payment, credit, user.id, 10_000, "p-3")
    await _deliver_again(app, db)
    assert completed == []
    assert len(await _carts(db, user.id)) == 1


@pytest.mark.sales_env(AUTO_PURCHASE_AFTER_TOPUP_ENABLED="true")
async def test_an_expired_cart_is_not_completed(app, db, make_user, new_payment, credit, completed):
    user = await make_user(balance_kopeks=0)
    await _save_extend_cart(app, db, user.id, 100, now=utcnow() - timedelta(hours=2))
    await _top_up(new_payment, credit, user.id, 10_000, "p-4")
    await _deliver_again(app, db)
    assert completed == []
