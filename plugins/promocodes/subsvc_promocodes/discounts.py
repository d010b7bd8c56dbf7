"""The personal discounts ``discount`` codes grant: one per user at a time, until it expires
(or, without an end, until the user's first purchase). Other plugins' discounts (promo
offers) are asked about through this plugin's hooks (:mod:`subsvc_promocodes.hookspecs`)."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete as sa_delete
from sqlalchemy import or_, update
from sqlmodel import col, delete, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_promo_groups.api import ensure_default_group, find_group
from subsvc_users.api import User, UserUpdateRequest, update_user

from subsvc.db import utcnow
from subsvc.services import services
from subsvc_promocodes.models import CODES, DISCOUNTS, PromoCode, PromoCodeDiscount, PromoCodeUse


class NoDiscount(LookupError):
    """The user holds no discount from a promo code."""


class DiscountExpired(LookupError):
    """The user's promo-code discount has run out already."""


@dataclass(frozen=True)
class Deactivated:
    code: str
    percent: int


def is_current(discount: PromoCodeDiscount, now: datetime) -> bool:
    return discount.expires_at is None or discount.expires_at > now


async def find(session: AsyncSession, user_id: int, *, for_update: bool = False) -> PromoCodeDiscount | None:
    query = select(PromoCodeDiscount).where(col(PromoCodeDiscount.user_id) == user_id)
    if for_update:
        query = query.with_for_update()
    return (await session.exec(query)).first()


async def active(
    session: AsyncSession, user_id: int, now: datetime | None = None
) -> PromoCodeDiscount | None:
    """The user's promo-code discount while it holds (``None`` once expired)."""
    discount = await find(session, user_id)
    return discount if discount is not None and is_current(discount, now or utcnow()) else None


async def consume(session: AsyncSession, user_id: int, now: datetime | None = None) -> int | None:
    """Use up the user's discount for a purchase, in its transaction: one conditional
    ``DELETE`` of the row while it holds (of two purchases at once one gets it); its percent,
    ``None`` when none holds. The activation stays (the code was used). The user's row is
    locked first, as activations and deactivations take it before the discount's."""
    await session.exec(select(col(User.id)).where(col(User.id) == user_id).with_for_update())
    moment = now or utcnow()
    table = DISCOUNTS
    statement = (
        sa_delete(table)
        .where(
            table.c.user_id == user_id,
            table.c.percent > 0,
            or_(table.c.expires_at.is_(None), table.c.expires_at > moment),
        )
        .returning(table.c.percent)
    )
    row = (await session.exec(statement)).first()
    return None if row is None else int(row[0])


async def _resolve(result: Any) -> Any:
    return await result if inspect.isawaitable(result) else result


async def other_discount(app: Starlette, session: AsyncSession, user_id: int) -> Mapping[str, Any] | None:
    """The discount another plugin says the user holds now (``other_active_discount`` hook)."""
    found = await services(app).plugins.first_result(
        "other_active_discount", app=app, session=session, user_id=user_id
    )
    return found or None


async def deactivate_other(app: Starlette, session: AsyncSession, user_id: int) -> int | None:
    """Ask the other plugins to clear the user's discount; the percent they cleared, if any."""
    cleared = await services(app).plugins.first_result(
        "deactivate_other_discount", app=app, session=session, user_id=user_id
    )
    return int(cleared) if cleared is not None else None


async def grant(
    session: AsyncSession, user_id: int, code: PromoCode, percent: int, expires_at: datetime | None
) -> None:
    """Store the user's discount, replacing an expired one (the caller checked none holds)."""
    await session.exec(delete(PromoCodeDiscount).where(col(PromoCodeDiscount.user_id) == user_id))
    session.add(
        PromoCodeDiscount(
            user_id=user_id,
            promocode_id=code.id,
            code=code.code,
            percent=percent,
            expires_at=expires_at,
            created_at=utcnow(),
        )
    )
    await session.flush()


async def deactivate(app: Starlette, session: AsyncSession, user: User) -> Deactivated:
    """Take back the user's current promo-code discount: the discount goes, the activation is
    undone (its use row deleted, the code's ``current_uses`` lowered, so the code may be used
    again), and a user the code moved into its promo group goes back to the group they were in.

    Raises :class:`NoDiscount` or :class:`DiscountExpired` (then nothing changes). The caller
    holds the user's row lock; rows are locked in the order activations and deletions of
    codes take them (the code's, then the discount's), so none of them can deadlock.
    """
    assert user.id is not None
    discount = await find(session, user.id)
    if discount is None:
        raise NoDiscount(user.id)
    if not is_current(discount, utcnow()):
        raise DiscountExpired(user.id)
    if discount.promocode_id is not None:
        # the code's row before the discount's, as activations and deletions of codes take them
        await session.exec(
            select(PromoCode.id).where(col(PromoCode.id) == discount.promocode_id).with_for_update()
        )
    await session.refresh(discount, with_for_update=True)
    result = Deactivated(code=discount.code, percent=discount.percent)
    promocode_id = discount.promocode_id  # null when the code was deleted meanwhile
    await session.delete(discount)
    if promocode_id is not None:
        await _undo_use(app, session, user, promocode_id)
    await session.flush()
    return result


async def _undo_use(app: Starlette, session: AsyncSession, user: User, promocode_id: int) -> None:
    query = select(PromoCodeUse).where(
        col(PromoCodeUse.promocode_id) == promocode_id, col(PromoCodeUse.user_id) == user.id
    )
    use = (await session.exec(query)).first()
    if use is None:
        return
    await session.delete(use)
    lowered = (
        update(CODES)
        .where(CODES.c.id == promocode_id, CODES.c.current_uses > 0)
        .values(current_uses=CODES.c.current_uses - 1, updated_at=utcnow())
        .returning(CODES.c.promo_group_id)
    )
    row = (await session.exec(lowered)).first()
    code_group = row[0] if row is not None else None
    moved_back_to = use.previous_promo_group_id
    if moved_back_to is None or code_group is None or user.promo_group_id != code_group:
        return
    group = await find_group(session, moved_back_to) or await ensure_default_group(session)
    await update_user(app, session, user, UserUpdateRequest(promo_group_id=group.id))
