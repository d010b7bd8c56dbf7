"""Statistics, computed by a few aggregate queries and kept for ``STATS_CACHE_SECONDS``.

At a million users one pass over the user table costs on the order of 100 ms, so the
figures are cached: a request finds them ready, and at most one computation runs at a time
(concurrent requests for a stale value wait for that one instead of starting their own).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import Database
from subsvc_stats import queries
from subsvc_stats.schemas import (
    FullStats,
    OverviewStats,
    PaymentsOverview,
    SubscriptionsOverview,
    SupportOverview,
    UsersOverview,
    rubles,
)

T = TypeVar("T")


class Cached(Generic[T]):
    """A value recomputed at most every ``seconds``, one computation at a time."""

    def __init__(self, compute: Callable[[], Awaitable[T]], seconds: float) -> None:
        self.compute = compute
        self.seconds = seconds
        self.value: T | None = None
        self.expires = 0.0
        self.lock = asyncio.Lock()

    async def get(self) -> T:
        if self.value is not None and time.monotonic() < self.expires:
            return self.value
        async with self.lock:
            if self.value is None or time.monotonic() >= self.expires:
                self.value = await self.compute()
                self.expires = time.monotonic() + self.seconds
        return self.value

    def clear(self) -> None:
        self.expires = 0.0


async def overview(session: AsyncSession) -> OverviewStats:
    """The spec's Overview statistics with the formulas of the reference (§8)."""
    now = datetime.now(UTC)
    users = await queries.users_figures(session)
    subscriptions = await queries.subscriptions_figures(session, now)
    payments = await queries.transactions_figures(session, now)
    return OverviewStats(
        users=UsersOverview(
            total=users["total"],
            active=users["active"],
            blocked=users["blocked"],
            balance_kopeks=users["balance_kopeks"],
        ),
        subscriptions=SubscriptionsOverview(active=subscriptions["active"], expired=subscriptions["expired"]),
        support=SupportOverview(open_tickets=0),
        payments=PaymentsOverview(today_kopeks=payments["payments_today_kopeks"]),
    )


async def full(session: AsyncSession) -> FullStats:
    """Everything of the overview, and more detail per area."""
    now = datetime.now(UTC)
    users = await queries.users_figures(session)
    subscriptions = await queries.subscriptions_figures(session, now)
    transactions = await queries.transactions_figures(session, now)
    summary = await overview(session)
    by_type: dict[str, Any] = transactions.pop("by_type")  # type: ignore[assignment]
    return FullStats(
        overview=summary,
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
    """The cached statistics of one app."""

    def __init__(self, db: Database, seconds: float) -> None:
        self.db = db
        self.overview: Cached[OverviewStats] = Cached(lambda: self._run(overview), seconds)
        self.full: Cached[FullStats] = Cached(lambda: self._run(full), seconds)

    async def _run(self, compute: Callable[[AsyncSession], Awaitable[T]]) -> T:
        async with self.db.session(read_only=True) as session:
            return await compute(session)
