"""Account merge, promo_offers' part (``cabinet_account_merging``): the removed user's offers,
log entries and broadcast messages become the kept user's. An open offer (active, not
claimed) of a type the kept user also has open is closed (``is_active`` false) before it moves:
one open offer per user and type, the kept user's stays. The removed user's active discount
moves when the kept user has none (one per user: the kept user's wins). Templates and
broadcasts the removed user created name the kept user."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.sql import ColumnElement, FromClause
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import utcnow
from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc_promo_offers.tables import BROADCASTS, DISCOUNTS, LOGS, OFFERS, RECIPIENTS, TEMPLATES


def _open(table: FromClause) -> ColumnElement[bool]:
    """The condition of ``uq_discount_offers_open_user_type``, on ``table`` or an alias."""
    return sa.and_(table.c.is_active.is_(True), table.c.claimed_at.is_(None))


async def _close_duplicate_offers(session: AsyncSession, kept_id: int, removed_id: int) -> None:
    kept = OFFERS.alias("kept_offers")
    duplicate = sa.exists(
        sa.select(sa.literal(1))
        .select_from(kept)
        .where(kept.c.user_id == kept_id, kept.c.notification_type == OFFERS.c.notification_type, _open(kept))
    )
    await session.exec(
        sa.update(OFFERS)
        .where(OFFERS.c.user_id == removed_id, _open(OFFERS), duplicate)
        .values(is_active=False, updated_at=utcnow())
    )


@hookimpl(optionalhook=True)
async def cabinet_account_merging(session: AsyncSession, kept_user_id: int, removed_user_id: int) -> None:
    """promo_offers' part of an account merge (see the module's text)."""
    await _close_duplicate_offers(session, kept_user_id, removed_user_id)
    for column in (
        OFFERS.c.user_id,
        LOGS.c.user_id,
        RECIPIENTS.c.user_id,
        TEMPLATES.c.created_by,
        BROADCASTS.c.created_by,
    ):
        await reassign(session, column, kept_user_id, removed_user_id)
    await reassign(session, DISCOUNTS.c.user_id, kept_user_id, removed_user_id, unique=())
