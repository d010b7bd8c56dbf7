"""The personal discount a claimed offer activates: one per user, read by the cabinet, cleared
by the user, and consumed once by a purchase (:func:`consume_active_discount`, the API for the
plugins that sell)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, delete, or_, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import utcnow
from subsvc_promo_offers.common import dialect_insert, run_select
from subsvc_promo_offers.logs import CONSUMED, DISABLED, add_log
from subsvc_promo_offers.schemas import ActiveDiscountInfo
from subsvc_promo_offers.tables import DISCOUNTS, USERS


@dataclass(frozen=True)
class Discount:
    """A user's discount as stored."""

    percent: int
    source: str | None
    offer_id: int | None
    expires_at: datetime | None

    def is_active(self, now: datetime) -> bool:
        return self.percent > 0 and (self.expires_at is None or self.expires_at > now)


async def lock_user(session: AsyncSession, user_id: int) -> None:
    """Lock the user's row (``FOR UPDATE``; nothing on SQLite, which has one writer). What
    changes a user's discount takes it first, as a purchase's debit and promocodes'
    deactivation do, so none of them waits on another in the opposite order."""
    await run_select(session, select(USERS.c.id).where(USERS.c.id == user_id).with_for_update())


async def set_active_discount(
    session: AsyncSession,
    user_id: int,
    *,
    percent: int,
    source: str | None,
    offer_id: int | None,
    expires_at: datetime | None,
) -> None:
    """Give the user this discount, replacing the one they had."""
    now = utcnow()
    values = {
        "user_id": user_id,
        "discount_percent": percent,
        "source": source,
        "offer_id": offer_id,
        "expires_at": expires_at,
        "created_at": now,
        "updated_at": now,
    }
    insert = dialect_insert(session, DISCOUNTS).values(values)
    changed = ("discount_percent", "source", "offer_id", "expires_at", "updated_at")
    await session.exec(
        insert.on_conflict_do_update(
            index_elements=["user_id"], set_={name: insert.excluded[name] for name in changed}
        )
    )


async def get_discount(session: AsyncSession, user_id: int) -> Discount | None:
    query = select(DISCOUNTS).where(DISCOUNTS.c.user_id == user_id)
    row = (await run_select(session, query)).mappings().first()
    if row is None:
        return None
    return Discount(row["discount_percent"], row["source"], row["offer_id"], row["expires_at"])


def discount_info(discount: Discount | None, now: datetime) -> ActiveDiscountInfo:
    """The cabinet's view: the percent while the discount is active, else 0."""
    if discount is None:
        return ActiveDiscountInfo(discount_percent=0, is_active=False)
    active = discount.is_active(now)
    return ActiveDiscountInfo(
        discount_percent=discount.percent if active else 0,
        source=discount.source,
        expires_at=discount.expires_at,
        is_active=active,
    )


async def clear_active_discount(
    session: AsyncSession, user_id: int, *, context: str = "cabinet_clear"
) -> int | None:
    """Remove the user's discount (logged as ``disabled`` with ``context``): the percent it had,
    ``None`` when there was none. The user's row is locked first."""
    return await _removed(session, user_id, DISABLED, context)


async def consume_active_discount(session: AsyncSession, user_id: int, *, context: str) -> int:
    """Use the user's active discount for a purchase: it is removed (logged as ``consumed``
    with ``context``) and its percent returned; 0 when the user has none. Atomic: two
    purchases at once cannot both use it. The user's row is locked first."""
    now = utcnow()
    active = (
        DISCOUNTS.c.discount_percent > 0,
        or_(DISCOUNTS.c.expires_at.is_(None), DISCOUNTS.c.expires_at > now),
    )
    return await _removed(session, user_id, CONSUMED, context, *active) or 0


async def _removed(
    session: AsyncSession, user_id: int, action: str, context: str, *only: ColumnElement[bool]
) -> int | None:
    """Delete the user's discount (if it matches ``only``) and log it as ``action`` with
    ``context``, the user's row locked first: the percent it had, ``None`` when none went."""
    await lock_user(session, user_id)
    statement = (
        delete(DISCOUNTS)
        .where(DISCOUNTS.c.user_id == user_id, *only)
        .returning(DISCOUNTS.c.discount_percent, DISCOUNTS.c.source, DISCOUNTS.c.offer_id)
    )
    row = (await session.exec(statement)).first()
    if row is None:
        return None
    percent, source, offer_id = row
    add_log(
        session,
        action=action,
        user_id=user_id,
        offer_id=offer_id,
        source=source,
        percent=percent,
        details={"context": context},
    )
    return int(percent)
