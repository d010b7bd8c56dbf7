"""Reading what a referrer has: referees, earnings, withdrawals, percents (for the cabinet)."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any, TypeVar

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc.db import utcnow
from subsvc.services import services
from subsvc_referrals.hookspecs import NetworkCampaign

T = TypeVar("T")


async def resolved(answer: Any) -> Any:
    """A hook's answer, awaited when it is awaitable."""
    return await answer if inspect.isawaitable(answer) else answer


async def withdrawal_totals(app: Starlette, session: AsyncSession, user_id: int) -> tuple[int, int]:
    """``(withdrawn, pending)`` kopeks of the user's referral withdrawals (0, 0 without any)."""
    hook = services(app).plugins.hook.referral_withdrawal_totals
    answer = await resolved(hook(session=session, user_id=user_id))
    return (int(answer[0]), int(answer[1])) if answer is not None else (0, 0)


async def campaigns(
    app: Starlette, session: AsyncSession, ids: Sequence[int] | None
) -> list[NetworkCampaign]:
    """The campaigns of ``ids`` (``None``: all) the ``referral_network_campaigns`` hooks know."""
    found: list[NetworkCampaign] = []
    for answer in services(app).plugins.hook.referral_network_campaigns(session=session, campaign_ids=ids):
        found.extend(await resolved(answer) or ())
    return sorted(found, key=lambda campaign: campaign.id)


async def partner_ids(app: Starlette, session: AsyncSession) -> set[int]:
    """The approved partners (none without the ``partners`` plugin)."""
    answer = await resolved(services(app).plugins.hook.referral_partner_ids(session=session))
    return set(answer or ())


async def user_campaign(app: Starlette, session: AsyncSession, user_id: int) -> int | None:
    """The campaign that registered ``user_id`` (none without the ``campaigns`` plugin)."""
    answer = await resolved(
        services(app).plugins.hook.referral_user_campaign(session=session, user_id=user_id)
    )
    return int(answer) if answer is not None else None


async def referral_count(session: AsyncSession, user_id: int) -> int:
    query = select(func.count()).where(col(User.referred_by_id) == user_id)
    return int((await session.exec(query)).one())


async def active_referral_count(session: AsyncSession, user_id: int) -> int:
    """Referees with an ``active`` subscription that has not ended."""
    query = (
        select(func.count(func.distinct(col(Subscription.user_id))))
        .join(User, col(User.id) == col(Subscription.user_id))
        .where(
            col(User.referred_by_id) == user_id,
            col(Subscription.status) == "active",
            col(Subscription.end_date) > utcnow(),
        )
    )
    return int((await session.exec(query)).one())


def pages(total: int, per_page: int) -> int:
    return (total + per_page - 1) // per_page if total else 0
