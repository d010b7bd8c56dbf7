"""Saved carts: what a user wanted to buy when the balance was short, completed from the
balance after a top-up (``AUTO_PURCHASE_AFTER_TOPUP_ENABLED``), each exactly once.

A cart is claimed by a conditional DELETE in the transaction that completes it: a second
delivery of the same top-up (or a concurrent one) finds no row to delete and does nothing,
and a completion that fails rolls the DELETE back with everything else."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, delete, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.api import HTTPError
from subsvc.db import utcnow
from subsvc.events import Event
from subsvc.services import services
from subsvc_sales.kernel import InsufficientFunds, payment_required
from subsvc_sales.models import NO_SUBSCRIPTION, SalesCart
from subsvc_sales.settings import SalesSettings

log = logging.getLogger("subsvc.sales")

CartMode = Literal[
    "extend",
    "tariff_purchase",
    "daily_tariff_purchase",
    "subscription_purchase",
    "add_devices",
    "add_traffic",
]
COMPLETE_CART = "sales_complete_cart"


def _key(subscription_id: int | None) -> int:
    return NO_SUBSCRIPTION if subscription_id is None else subscription_id


async def save_cart(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    mode: CartMode,
    payload: Mapping[str, Any],
    *,
    subscription_id: int | None = None,
    now: datetime | None = None,
) -> None:
    """Keep what the user wanted to buy (one cart per user and subscription, the newest
    replacing; expires after ``CART_TTL_SECONDS``). Committed by the caller (a 402 answer
    commits the cart before answering)."""
    now = now or utcnow()
    values = {
        "mode": mode,
        "payload": dict(payload),
        "created_at": now,
        "expires_at": now + timedelta(seconds=SalesSettings.of(app).CART_TTL_SECONDS),
    }
    table: sa.Table = SalesCart.__table__  # type: ignore[attr-defined]
    insert = (postgresql if session.get_bind().dialect.name == "postgresql" else sqlite).insert(table)
    statement = insert.values(user_id=user_id, subscription_key=_key(subscription_id), **values)
    await session.exec(
        statement.on_conflict_do_update(index_elements=["user_id", "subscription_key"], set_=values)
    )


async def payment_required_with_cart(
    app: Starlette,
    session: AsyncSession,
    error: InsufficientFunds,
    user_id: int,
    mode: CartMode,
    payload: Mapping[str, Any],
    *,
    subscription_id: int | None = None,
    now: datetime | None = None,
    **fields: Any,
) -> HTTPError:
    """The 402 answer of a purchase the balance did not cover (raise it), once its cart is
    saved and committed (:func:`save_cart`): the ``fields`` given, then ``cart_saved`` true and
    ``cart_mode``."""
    await save_cart(app, session, user_id, mode, payload, subscription_id=subscription_id, now=now)
    await session.commit()
    return payment_required(error, **fields, cart_saved=True, cart_mode=mode)


async def drop_cart(
    app: Starlette, session: AsyncSession, user_id: int, *, subscription_id: int | None = None
) -> None:
    """Forget the user's cart of that subscription (none: of a new one), if any."""
    await session.exec(
        delete(SalesCart).where(
            col(SalesCart.user_id) == user_id, col(SalesCart.subscription_key) == _key(subscription_id)
        )
    )


async def carts_of(session: AsyncSession, user_id: int, *, now: datetime | None = None) -> list[SalesCart]:
    """The user's carts that have not expired, oldest first."""
    query = (
        select(SalesCart)
        .where(col(SalesCart.user_id) == user_id, col(SalesCart.expires_at) > (now or utcnow()))
        .order_by(col(SalesCart.created_at))
    )
    return list((await session.exec(query)).all())


async def _claim(session: AsyncSession, cart: SalesCart, now: datetime) -> bool:
    """Delete the cart as it was read (same mode and time, not expired); whether this
    transaction got it."""
    result = await session.exec(
        delete(SalesCart).where(
            col(SalesCart.user_id) == cart.user_id,
            col(SalesCart.subscription_key) == cart.subscription_key,
            col(SalesCart.created_at) == cart.created_at,
            col(SalesCart.expires_at) > now,
        )
    )
    return bool(result.rowcount)


async def complete_carts(app: Starlette, user_id: int, *, now: datetime | None = None) -> list[str]:
    """Replay the user's saved carts against the balance, each in a transaction of its own
    that claims the cart: the modes completed (their carts dropped). A cart whose seller
    answers ``False`` (still short, no longer valid) or that nobody completes is kept."""
    db = services(app).db
    plugins = services(app).plugins
    now = now or utcnow()
    async with db.session() as session:
        carts = await carts_of(session, user_id, now=now)
    completed = []
    for cart in carts:
        subscription_id = None if cart.subscription_key == NO_SUBSCRIPTION else cart.subscription_key
        async with db.session() as session:
            if not await _claim(session, cart, now):
                continue
            try:
                done = await plugins.first_result(
                    COMPLETE_CART,
                    app=app,
                    session=session,
                    user_id=user_id,
                    mode=cart.mode,
                    payload=dict(cart.payload),
                    subscription_id=subscription_id,
                )
            except Exception:  # one seller's failure keeps its cart and spares the others
                log.exception("cart %s of user %s could not be completed", cart.mode, user_id)
                done = False
            if done is True:
                await session.commit()
                completed.append(cart.mode)
                log.info("cart %s of user %s completed after a top-up", cart.mode, user_id)
            else:
                await session.rollback()
    return completed


async def on_topped_up(app: Starlette, event: Event) -> None:
    """``balance.topped_up``: with ``AUTO_PURCHASE_AFTER_TOPUP_ENABLED``, complete the user's
    carts (a second delivery of the event finds them claimed)."""
    if not SalesSettings.of(app).AUTO_PURCHASE_AFTER_TOPUP_ENABLED:
        return
    await complete_carts(app, int(event.payload["user_id"]))
