"""The users statistics of the cabinet admin: one aggregate query per table."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_subscriptions.api import Subscription, SubscriptionStatus
from subsvc_users.api import User

from subsvc.db import utcnow
from subsvc.db.rows import Rows
from subsvc_cabinet_admin_users.schemas import UsersStatsResponse

LIVE = (SubscriptionStatus.ACTIVE.value, SubscriptionStatus.TRIAL.value)


def _count(condition: Any) -> Any:
    return func.count().filter(condition)


async def users_stats(session: AsyncSession, now: datetime | None = None) -> UsersStatsResponse:
    """Counts of users by status, sign-up and activity, and of users by what their
    subscriptions are; balances of active users. Windows: the UTC day so far, the last 7 and
    30 days."""
    now = now or utcnow()
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    week, month = now - timedelta(days=7), now - timedelta(days=30)
    active = col(User.status) == "active"
    seen = col(User.last_activity)
    user_row = (
        await session.exec(
            Rows(
                func.count(),
                _count(active),
                _count(col(User.status) == "blocked"),
                _count(col(User.status) == "deleted"),
                _count(col(User.created_at) >= today),
                _count(col(User.created_at) >= week),
                _count(col(User.created_at) >= month),
                func.coalesce(func.sum(col(User.balance_kopeks)).filter(active), 0),
                _count(and_(active, seen >= today)),
                _count(and_(active, seen >= week)),
                _count(and_(active, seen >= month)),
            ).select_from(User)
        )
    ).one()
    total, active_n, blocked, deleted, new_today, new_week, new_month, balance, *seen_counts = (
        int(value) for value in user_row
    )
    live = and_(col(Subscription.status).in_(LIVE), col(Subscription.end_date) > now)
    per_user = (
        select(
            col(Subscription.user_id),
            func.max(case((live, 1), else_=0)).label("live"),
            func.max(case((and_(live, col(Subscription.is_trial)), 1), else_=0)).label("trial"),
        )
        .group_by(col(Subscription.user_id))
        .subquery("per_user")
    )
    sub_row = (
        await session.exec(
            select(
                func.count(),
                _count(per_user.c.live == 1),
                _count(per_user.c.trial == 1),
                _count(per_user.c.live == 0),
            ).select_from(per_user)
        )
    ).one()
    with_sub, with_live, with_trial, expired = (int(value) for value in sub_row)
    return UsersStatsResponse(
        total_users=total,
        active_users=active_n,
        blocked_users=blocked,
        deleted_users=deleted,
        new_today=new_today,
        new_week=new_week,
        new_month=new_month,
        users_with_subscription=with_sub,
        users_with_active_subscription=with_live,
        users_with_trial=with_trial,
        users_with_expired_subscription=expired,
        total_balance_kopeks=balance,
        total_balance_rubles=round(balance / 100, 2),
        avg_balance_kopeks=balance // active_n if active_n else 0,
        active_today=seen_counts[0],
        active_week=seen_counts[1],
        active_month=seen_counts[2],
    )
