"""Reading users and their referral figures for the lists (a few aggregate queries per page,
never one per row)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_referrals.api import ReferralEarning
from subsvc_users.api import User

from subsvc.db import utcnow


async def users_by_id(session: AsyncSession, ids: Iterable[int]) -> dict[int, User]:
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}
    return {u.id: u for u in (await session.exec(select(User).where(col(User.id).in_(wanted)))).all() if u.id}


def identity(user: User | None) -> dict[str, Any]:
    """How the administrator's items name a user: username, first name, messenger id (all
    ``None`` without the user)."""
    return {
        "username": user.username if user else None,
        "first_name": user.first_name if user else None,
        "messenger_id": user.messenger_id if user else None,
    }


def period_starts(now: datetime | None = None) -> dict[str, datetime]:
    """Starts of today (UTC midnight), the last 7, 30 and 365 days."""
    now = now or utcnow()
    return {
        "today": now.replace(hour=0, minute=0, second=0, microsecond=0),
        "week": now - timedelta(days=7),
        "month": now - timedelta(days=30),
        "year": now - timedelta(days=365),
    }


async def earnings_since(
    session: AsyncSession, user_ids: Sequence[int], since: datetime | None = None
) -> dict[int, int]:
    """Each user's earnings (since ``since``)."""
    if not user_ids:
        return {}
    query = (
        select(ReferralEarning.user_id, sa.func.coalesce(sa.func.sum(ReferralEarning.amount_kopeks), 0))
        .where(col(ReferralEarning.user_id).in_(list(user_ids)))
        .group_by(col(ReferralEarning.user_id))
    )
    if since is not None:
        query = query.where(col(ReferralEarning.created_at) >= since)
    return {uid: int(total) for uid, total in (await session.exec(query)).all()}


async def referee_counts(session: AsyncSession, user_ids: Sequence[int]) -> dict[int, tuple[int, int, int]]:
    """Per referrer: referees, paying referees (first top-up made), active referees."""
    if not user_ids:
        return {}
    query = (
        select(
            User.referred_by_id,
            sa.func.count(),
            sa.func.sum(sa.case((col(User.has_made_first_topup), 1), else_=0)),
            sa.func.sum(sa.case((col(User.status) == "active", 1), else_=0)),
        )
        .where(col(User.referred_by_id).in_(list(user_ids)))
        .group_by(col(User.referred_by_id))
    )
    return {
        int(r or 0): (int(n), int(p or 0), int(a or 0)) for r, n, p, a in (await session.exec(query)).all()
    }
