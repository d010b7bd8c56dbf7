"""Aggregate queries of the Web API statistics and a partner's campaign statistics: referees
and earnings (of one referrer, through one campaign's registrations) counted by period or by
day in SQL (one query per figure, whatever the number of users)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import ColumnElement
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar
from subsvc_campaigns.api import CampaignRegistration
from subsvc_referrals.api import ReferralEarning
from subsvc_users.api import User

from subsvc.db import utcnow

S = TypeVar("S", bound=SelectOfScalar[Any])


def _referees(referrer_id: int | None, campaign_id: int | None = None) -> ColumnElement[bool]:
    """The referees (of ``referrer_id``; only those ``campaign_id`` registered)."""
    referred = (
        col(User.referred_by_id).is_not(None)
        if referrer_id is None
        else col(User.referred_by_id) == referrer_id
    )
    if campaign_id is None:
        return referred
    registered = select(CampaignRegistration.user_id).where(
        col(CampaignRegistration.campaign_id) == campaign_id
    )
    return sa.and_(referred, col(User.id).in_(registered))


def _earnings(referrer_id: int | None, campaign_id: int | None = None) -> list[ColumnElement[bool]]:
    """The earnings (of ``referrer_id``; only those through referees ``campaign_id`` registered)."""
    mine = [] if referrer_id is None else [col(ReferralEarning.user_id) == referrer_id]
    return mine if campaign_id is None else [*mine, col(ReferralEarning.campaign_id) == campaign_id]


def _between(query: S, column: Any, since: datetime | None, until: datetime | None) -> S:
    """``query`` limited to ``since <= column < until`` (either end open when ``None``)."""
    if since is not None:
        query = query.where(column >= since)
    if until is not None:
        query = query.where(column < until)
    return query


async def referees_between(
    session: AsyncSession,
    referrer_id: int | None,
    since: datetime | None,
    until: datetime | None = None,
    campaign_id: int | None = None,
) -> int:
    query = select(sa.func.count()).select_from(User).where(_referees(referrer_id, campaign_id))
    return int((await session.exec(_between(query, col(User.created_at), since, until))).one())


async def earned_between(
    session: AsyncSession,
    referrer_id: int | None,
    since: datetime | None,
    until: datetime | None = None,
    campaign_id: int | None = None,
) -> int:
    query = select(sa.func.coalesce(sa.func.sum(ReferralEarning.amount_kopeks), 0)).where(
        *_earnings(referrer_id, campaign_id)
    )
    return int((await session.exec(_between(query, col(ReferralEarning.created_at), since, until))).one())


def _day(value: Any) -> str:
    return value.isoformat() if isinstance(value, date) else str(value)[:10]


async def daily(
    session: AsyncSession, referrer_id: int | None, days: int, campaign_id: int | None = None
) -> list[dict[str, Any]]:
    """New referees and earnings per day of the last ``days`` days (today included), oldest
    first (only through ``campaign_id``'s registrations when given)."""
    today = utcnow().date()
    first = today - timedelta(days=days - 1)
    since = datetime.combine(first, datetime.min.time(), tzinfo=utcnow().tzinfo)
    user_day = sa.func.date(User.created_at)
    joined = (
        await session.exec(
            select(user_day, sa.func.count())
            .where(_referees(referrer_id, campaign_id), col(User.created_at) >= since)
            .group_by(user_day)
        )
    ).all()
    earning_day = sa.func.date(ReferralEarning.created_at)
    earned = (
        await session.exec(
            select(earning_day, sa.func.sum(ReferralEarning.amount_kopeks))
            .where(*_earnings(referrer_id, campaign_id), col(ReferralEarning.created_at) >= since)
            .group_by(earning_day)
        )
    ).all()
    referrals = {_day(d): int(n) for d, n in joined}
    earnings = {_day(d): int(n or 0) for d, n in earned}
    out = []
    for offset in range(days):
        key = (first + timedelta(days=offset)).isoformat()
        out.append(
            {"date": key, "referrals_count": referrals.get(key, 0), "earnings_kopeks": earnings.get(key, 0)}
        )
    return out


async def earned_from(session: AsyncSession, referrer_id: int, referee_ids: Sequence[int]) -> dict[int, int]:
    """What the referrer earned through each referee."""
    if not referee_ids:
        return {}
    query = (
        select(ReferralEarning.referral_id, sa.func.sum(ReferralEarning.amount_kopeks))
        .where(
            col(ReferralEarning.user_id) == referrer_id,
            col(ReferralEarning.referral_id).in_(list(referee_ids)),
        )
        .group_by(col(ReferralEarning.referral_id))
    )
    return {int(r): int(n or 0) for r, n in (await session.exec(query)).all() if r is not None}


async def campaign_figures(
    session: AsyncSession, referrer_id: int, campaign_ids: Sequence[int]
) -> dict[int, tuple[int, int]]:
    """Per campaign of ``campaign_ids``: the referrer's referees it registered and what the
    referrer earned through them (earnings carry the referee's campaign); two grouped queries."""
    if not campaign_ids:
        return {}
    ids = list(campaign_ids)
    registered = (
        select(CampaignRegistration.campaign_id, sa.func.count())
        .join(User, col(User.id) == col(CampaignRegistration.user_id))
        .where(col(CampaignRegistration.campaign_id).in_(ids), col(User.referred_by_id) == referrer_id)
        .group_by(col(CampaignRegistration.campaign_id))
    )
    referees = {int(c): int(n) for c, n in (await session.exec(registered)).all()}
    earned = (
        select(ReferralEarning.campaign_id, sa.func.sum(ReferralEarning.amount_kopeks))
        .where(col(ReferralEarning.user_id) == referrer_id, col(ReferralEarning.campaign_id).in_(ids))
        .group_by(col(ReferralEarning.campaign_id))
    )
    earnings = {int(c): int(n or 0) for c, n in (await session.exec(earned)).all() if c is not None}
    return {c: (referees.get(c, 0), earnings.get(c, 0)) for c in ids}


async def top_referrals(
    session: AsyncSession, referrer_id: int, campaign_id: int | None = None, limit: int = 10
) -> list[tuple[User, int]]:
    """The referrer's referees (only those ``campaign_id`` registered, counting only what came
    through it), who earned the referrer most first, with that sum."""
    earned = (
        select(ReferralEarning.referral_id, sa.func.sum(ReferralEarning.amount_kopeks).label("kopeks"))
        .where(*_earnings(referrer_id, campaign_id))
        .group_by(col(ReferralEarning.referral_id))
        .subquery()
    )
    amount = sa.func.coalesce(earned.c.kopeks, 0)
    query = (
        select(User, amount)
        .outerjoin(earned, earned.c.referral_id == User.id)
        .where(_referees(referrer_id, campaign_id))
        .order_by(amount.desc(), col(User.id))
        .limit(limit)
    )
    return [(user, int(total)) for user, total in (await session.exec(query)).all()]
