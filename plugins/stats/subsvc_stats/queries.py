"""The aggregate queries: one statement per table, every figure of a table in one scan."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db.rows import Rows

users = sa.table(
    "users",
    sa.column("status"),
    sa.column("balance_kopeks"),
    sa.column("created_at"),
    sa.column("referred_by_id"),
    sa.column("has_had_paid_subscription"),
)
subscriptions = sa.table("subscriptions", sa.column("status"), sa.column("is_trial"), sa.column("end_date"))
transactions = sa.table(
    "transactions",
    sa.column("type"),
    sa.column("amount_kopeks"),
    sa.column("payment_method"),
    sa.column("created_at"),
)
# Every payment method that is a real gateway: the manual correction and internal balance
# payments are not money coming in.
NOT_GATEWAYS = ("manual", "balance")


def _count(condition: Any = None) -> Any:
    return sa.func.count() if condition is None else sa.func.count().filter(condition)


def _sum(expression: Any, condition: Any = None) -> Any:
    total = sa.func.sum(expression) if condition is None else sa.func.sum(expression).filter(condition)
    return sa.func.coalesce(total, 0)


def today_bounds(now: datetime | None = None) -> tuple[datetime, datetime]:
    """The current UTC calendar day as a half-open range (index-friendly, unlike date())."""
    now = now or datetime.now(UTC)
    start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return start, start + timedelta(days=1)


# Every figure of the users table by name; each query picks the ones it shows.
USER_FIGURES: dict[str, Any] = {
    "total": _count(),
    "active": _count(users.c.status == "active"),
    "blocked": _count(users.c.status == "blocked"),
    "deleted": _count(users.c.status == "deleted"),
    "balance_kopeks": _sum(users.c.balance_kopeks),
    "referred": _count(users.c.referred_by_id.is_not(None)),
    "ever_paid": _count(users.c.has_had_paid_subscription.is_(True)),
}


async def _figures(session: AsyncSession, statement: Rows) -> dict[str, int]:
    """The one row of an aggregate statement, by label, as whole numbers."""
    row = (await session.exec(statement)).one()
    return {key: int(value) for key, value in zip(statement.selected_columns.keys(), row, strict=True)}


async def _user_figures(session: AsyncSession, *names: str) -> dict[str, int]:
    """The named users figures in one pass over the table."""
    return await _figures(
        session, Rows(*(USER_FIGURES[name].label(name) for name in names)).select_from(users)
    )


async def users_figures(session: AsyncSession) -> dict[str, int]:
    return await _user_figures(session, *USER_FIGURES)


async def users_overview(session: AsyncSession) -> dict[str, int]:
    """The overview's four user figures: one pass, no aggregate it does not show."""
    return await _user_figures(session, "total", "active", "blocked", "balance_kopeks")


async def subscriptions_overview(session: AsyncSession) -> dict[str, int]:
    """Active and expired subscriptions, counted from the status index (those rows only)."""
    shown = ("active", "expired")
    rows = (
        await session.exec(
            Rows(subscriptions.c.status, _count())
            .where(subscriptions.c.status.in_(shown))
            .group_by(subscriptions.c.status)
        )
    ).all()
    counted = {status: int(count) for status, count in rows}
    return {status: counted.get(status, 0) for status in shown}


async def subscriptions_figures(session: AsyncSession, now: datetime) -> dict[str, int]:
    return await _figures(
        session,
        Rows(
            _count().label("total"),
            _count(subscriptions.c.status == "active").label("active"),
            _count(subscriptions.c.status == "expired").label("expired"),
            _count(subscriptions.c.status == "disabled").label("disabled"),
            _count(subscriptions.c.is_trial.is_(True)).label("trial_total"),
            _count(
                sa.and_(
                    subscriptions.c.is_trial.is_(True),
                    subscriptions.c.status == "active",
                    subscriptions.c.end_date > now,
                )
            ).label("trial_active"),
            _count(sa.and_(subscriptions.c.is_trial.is_(False), subscriptions.c.status == "active")).label(
                "paid_active"
            ),
        ).select_from(subscriptions),
    )


async def transactions_figures(session: AsyncSession, now: datetime) -> dict[str, int]:
    """Today's figures (UTC day), read through the ``created_at`` index: today's rows only."""
    start, end = today_bounds(now)
    today = sa.and_(transactions.c.created_at >= start, transactions.c.created_at < end)
    gateway = sa.and_(
        transactions.c.payment_method.is_not(None), transactions.c.payment_method.not_in(NOT_GATEWAYS)
    )
    deposit = transactions.c.type == "deposit"
    amount = sa.func.abs(transactions.c.amount_kopeks)
    return await _figures(
        session,
        Rows(
            _sum(amount, sa.and_(deposit, gateway, today)).label("payments_today_kopeks"),
            _count(today).label("today_count"),
            _sum(amount, sa.and_(deposit, today)).label("deposits_today_kopeks"),
        )
        .select_from(transactions)
        .where(today),
    )


async def transactions_by_type(session: AsyncSession) -> dict[str, dict[str, int]]:
    """Count and sum of |amount| per transaction type, over the whole table (the full
    statistics only: the overview does not pay for this pass)."""
    amount = sa.func.abs(transactions.c.amount_kopeks)
    totals = (
        await session.exec(
            Rows(transactions.c.type, _count().label("count"), _sum(amount).label("kopeks"))
            .group_by(transactions.c.type)
            .order_by(transactions.c.type)
        )
    ).all()
    return {t: {"count": int(c), "kopeks": int(k)} for t, c, k in totals}
