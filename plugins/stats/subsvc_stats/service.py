"""Statistics, computed by a few aggregate queries and kept in memory.

At a million users one pass over the user table costs on the order of 200 ms, so no request
waits for one unless it must: the last figures are answered at once while newer ones are
computed in the background (after ``STATS_CACHE_SECONDS``, or when another instance changed
a table they come from), and only a request that follows a change committed on this instance
waits for figures computed after that change (:mod:`subsvc_stats.freshness`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import rubles
from subsvc.bus import Bus
from subsvc.db import Database
from subsvc_stats import queries
from subsvc_stats.freshness import Changes, Figures
from subsvc_stats.schemas import (
    FullStats,
    OverviewStats,
    PaymentsOverview,
    SubscriptionsOverview,
    SupportOverview,
    UsersOverview,
)

T = TypeVar("T")


def _overview(users: dict[str, int], subscriptions: dict[str, int], payments_today: int) -> OverviewStats:
    return OverviewStats(
        users=UsersOverview(
            total=users["total"],
            active=users["active"],
            blocked=users["blocked"],
            balance_kopeks=users["balance_kopeks"],
        ),
        subscriptions=SubscriptionsOverview(active=subscriptions["active"], expired=subscriptions["expired"]),
        support=SupportOverview(open_tickets=0),
        payments=PaymentsOverview(today_kopeks=payments_today),
    )


async def overview(session: AsyncSession) -> OverviewStats:
    """The spec's Overview statistics with the formulas of the reference (§8)."""
    now = datetime.now(UTC)
    users = await queries.users_overview(session)
    subscriptions = await queries.subscriptions_overview(session)
    payments = await queries.transactions_figures(session, now)
    return _overview(users, subscriptions, payments["payments_today_kopeks"])


async def full(session: AsyncSession) -> FullStats:
    """Everything of the overview, and more detail per area (each table read once)."""
    now = datetime.now(UTC)
    users = await queries.users_figures(session)
    subscriptions = await queries.subscriptions_figures(session, now)
    transactions = await queries.transactions_figures(session, now)
    by_type = await queries.transactions_by_type(session)
    return FullStats(
        overview=_overview(users, subscriptions, transactions["payments_today_kopeks"]),
        users={**users, "balance_rubles": rubles(users["balance_kopeks"])},
        subscriptions={
            "total": subscriptions["total"],
            "active": subscriptions["active"],
            "expired": subscriptions["expired"],
            "disabled": subscriptions["disabled"],
            "paid_active": subscriptions["paid_active"],
            "trial_statistics": {
                "total": subscriptions["trial_total"],
                "active": subscriptions["trial_active"],
            },
        },
        transactions={
            "totals": by_type,
            "today": {
                "count": transactions["today_count"],
                "deposits_kopeks": transactions["deposits_today_kopeks"],
                "payments_kopeks": transactions["payments_today_kopeks"],
                "payments_rubles": rubles(transactions["payments_today_kopeks"]),
            },
        },
        referrals={"referred_users": users["referred"]},
        generated_at=now.isoformat(),
    )


class StatsService:
    """The statistics of one app instance, kept fresh by :class:`Changes`."""

    def __init__(self, db: Database, bus: Bus, seconds: float) -> None:
        self.db = db
        self.changes = Changes(db, bus)
        self.overview: Figures[OverviewStats] = Figures(lambda: self._run(overview), seconds, self.changes)
        self.full: Figures[FullStats] = Figures(lambda: self._run(full), seconds, self.changes)

    async def _run(self, compute: Callable[[AsyncSession], Awaitable[T]]) -> T:
        async with self.db.session(read_only=True) as session:
            return await compute(session)

    async def settled(self) -> None:
        """Wait for the computations running now (a test's way to see a background one end)."""
        await self.overview.settled()
        await self.full.settled()

    async def stop(self) -> None:
        await self.overview.stop()
        await self.full.stop()
        await self.changes.stop()
