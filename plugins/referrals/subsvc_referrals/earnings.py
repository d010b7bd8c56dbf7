"""Referral earnings: recorded once per key, credited through billing in the same transaction."""

from __future__ import annotations

import inspect
from collections.abc import Iterable

from sqlalchemy import func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing.api import move_balance

from subsvc.services import services
from subsvc_referrals.models import ReferralEarning

REFERRAL_REWARD = "referral_reward"


async def insert_once(session: AsyncSession, row: SQLModel) -> bool:
    """Insert ``row`` in a savepoint; ``False`` (nothing written) when a unique key refuses it."""
    try:
        async with session.begin_nested():
            session.add(row)
            await session.flush()
    except IntegrityError:
        return False
    return True


async def credit_reward(
    app: Starlette, session: AsyncSession, user_id: int, amount_kopeks: int, description: str
) -> int:
    """Credit ``amount_kopeks`` to ``user_id``'s balance with a ``referral_reward`` transaction;
    its id."""
    events = services(app).events
    transaction_id, _ = await move_balance(
        session, events, user_id, amount_kopeks, type=REFERRAL_REWARD, description=description
    )
    return transaction_id


async def record_earning(
    app: Starlette,
    session: AsyncSession,
    *,
    earner_id: int,
    referral_id: int | None,
    amount_kopeks: int,
    reason: str,
    key: str,
    campaign_id: int | None = None,
    description: str | None = None,
) -> bool:
    """Write the earning ``key`` and credit ``amount_kopeks`` to ``earner_id`` with a
    ``referral_reward`` transaction, in the caller's transaction; ``False`` (nothing done)
    when an earning of that key exists already. A zero amount writes the earning only."""
    earning = ReferralEarning(
        user_id=earner_id,
        referral_id=referral_id,
        amount_kopeks=amount_kopeks,
        reason=reason,
        key=key,
        campaign_id=campaign_id,
    )
    if not await insert_once(session, earning):
        return False
    if amount_kopeks > 0:
        description = description or "Реферальное вознаграждение"
        transaction_id = await credit_reward(app, session, earner_id, amount_kopeks, description)
        await session.exec(
            update(ReferralEarning)
            .where(col(ReferralEarning.id) == earning.id)
            .values(transaction_id=transaction_id)
        )
    return True


async def earned_totals(session: AsyncSession, user_ids: Iterable[int]) -> dict[int, int]:
    """The sum of the earnings of each of ``user_ids`` (0 for a user with none)."""
    ids = list(dict.fromkeys(user_ids))
    totals = dict.fromkeys(ids, 0)
    if ids:
        query = (
            select(col(ReferralEarning.user_id), func.coalesce(func.sum(ReferralEarning.amount_kopeks), 0))
            .where(col(ReferralEarning.user_id).in_(ids))
            .group_by(col(ReferralEarning.user_id))
        )
        totals.update({user_id: int(total) for user_id, total in (await session.exec(query)).all()})
    return totals


async def individual_percent(app: Starlette, session: AsyncSession, user_id: int) -> int | None:
    """The referrer's individual percent from the ``referral_commission_percent`` hook
    (an out-of-range answer counts as none)."""
    answer = services(app).plugins.hook.referral_commission_percent(session=session, user_id=user_id)
    if inspect.isawaitable(answer):
        answer = await answer
    return answer if isinstance(answer, int) and 0 <= answer <= 100 else None
