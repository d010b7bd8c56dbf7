"""Campaign statistics. The registration and revenue figures are read from the running totals
(:mod:`subsvc_campaigns.totals`); the aggregates here compute them from the rows (the tests'
oracle, the backfill's definition) and answer the rest. Each figure is one aggregate statement
over the registrations (indexed by ``(campaign_id, created_at)``) joined with the registered
users' transactions (indexed by ``(user_id, created_at)``) and subscriptions.

Revenue is what the registered users paid through a payment provider: completed
``deposit`` transactions whose method is a gateway (not ``manual``, not ``balance``). A
campaign's own bonus is a ``campaign_bonus`` transaction and never counts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_billing.api import DEPOSIT, Transaction
from subsvc_subscriptions.api import LIVE, Subscription
from subsvc_users.api import USERS

from subsvc_campaigns.models import Campaign, CampaignPayer, CampaignRegistration, CampaignTotals

REG = sa.inspect(CampaignRegistration).local_table
TX = sa.inspect(Transaction).local_table
SUBS = sa.inspect(Subscription).local_table
NOT_GATEWAYS = ("manual", "balance")
PAID = sa.and_(
    TX.c.type == DEPOSIT,
    TX.c.is_completed.is_(True),
    TX.c.payment_method.is_not(None),
    TX.c.payment_method.not_in(NOT_GATEWAYS),
)


def _int(value: Any) -> int:
    return int(value or 0)


def _count_if(condition: Any) -> Any:
    return sa.func.coalesce(sa.func.sum(sa.case((condition, 1), else_=0)), 0)


@dataclass
class Registrations:
    """A campaign's registration totals."""

    count: int = 0
    balance_kopeks: int = 0
    subscriptions: int = 0
    tariffs: int = 0
    last: datetime | None = None


@dataclass
class Revenue:
    """What a campaign's users paid."""

    kopeks: int = 0
    paid_users: int = 0


def _registration_columns() -> list[Any]:
    return [
        sa.func.count().label("count"),
        sa.func.coalesce(sa.func.sum(REG.c.balance_bonus_kopeks), 0).label("balance_kopeks"),
        _count_if(REG.c.bonus_type == "subscription").label("subscriptions"),
        _count_if(REG.c.bonus_type == "tariff").label("tariffs"),
        sa.func.max(REG.c.created_at).label("last"),
    ]


async def registrations_by_campaign(session: AsyncSession, ids: Sequence[int]) -> dict[int, Registrations]:
    """Registration totals of each campaign in ``ids`` (one grouped statement)."""
    if not ids:
        return {}
    query = sa.select(REG.c.campaign_id, *_registration_columns()).where(REG.c.campaign_id.in_(ids))
    rows = (await session.exec(query.group_by(REG.c.campaign_id))).all()  # type: ignore[call-overload]
    return {
        row.campaign_id: Registrations(
            _int(row.count), _int(row.balance_kopeks), _int(row.subscriptions), _int(row.tariffs), row.last
        )
        for row in rows
    }


async def revenue_by_campaign(session: AsyncSession, ids: Sequence[int]) -> dict[int, Revenue]:
    """Revenue and paying users of each campaign in ``ids`` (one grouped statement)."""
    if not ids:
        return {}
    query = (
        sa.select(
            REG.c.campaign_id,
            sa.func.coalesce(sa.func.sum(TX.c.amount_kopeks), 0).label("kopeks"),
            sa.func.count(sa.distinct(TX.c.user_id)).label("paid_users"),
        )
        .select_from(REG.join(TX, TX.c.user_id == REG.c.user_id))
        .where(REG.c.campaign_id.in_(ids), PAID)
        .group_by(REG.c.campaign_id)
    )
    rows = (await session.exec(query)).all()  # type: ignore[call-overload]
    return {row.campaign_id: Revenue(_int(row.kopeks), _int(row.paid_users)) for row in rows}


async def overview(session: AsyncSession) -> dict[str, int]:
    """Totals over every campaign and registration (their running totals summed)."""
    campaigns = sa.inspect(Campaign).local_table
    counted = sa.select(
        sa.func.count().label("total"), _count_if(campaigns.c.is_active.is_(True)).label("active")
    )
    totals = (await session.exec(counted)).one()  # type: ignore[call-overload]
    kept = sa.inspect(CampaignTotals).local_table.c
    sums = (sa.func.coalesce(sa.func.sum(c), 0) for c in (kept.registrations, kept.balance_kopeks))
    issued = (sa.func.coalesce(sa.func.sum(c), 0) for c in (kept.subscriptions, kept.tariffs))
    query = sa.select(*sums, *issued)
    count, balance, subscriptions, tariffs = (await session.exec(query)).one()  # type: ignore[call-overload]
    return {
        "total": _int(totals.total),
        "active": _int(totals.active),
        "inactive": _int(totals.total) - _int(totals.active),
        "total_registrations": _int(count),
        "total_balance_issued_kopeks": _int(balance),
        "total_subscription_issued": _int(subscriptions),
        "total_tariff_issued": _int(tariffs),
    }


def percent(part: int, whole: int) -> float:
    """``part`` of ``whole`` in percent, two decimals (0 for an empty whole)."""
    return round(part * 100 / whole, 2) if whole else 0.0


async def first_payment_average(session: AsyncSession, campaign_id: int) -> int:
    """The average first gateway payment of the campaign's paying users (the aggregate)."""
    first_ids = (
        sa.select(sa.func.min(TX.c.id).label("id"))
        .select_from(REG.join(TX, TX.c.user_id == REG.c.user_id))
        .where(REG.c.campaign_id == campaign_id, PAID)
        .group_by(TX.c.user_id)
        .subquery()
    )
    first = sa.select(sa.func.avg(TX.c.amount_kopeks)).where(TX.c.id.in_(sa.select(first_ids.c.id)))
    return _int(round((await session.exec(first)).scalar() or 0))  # type: ignore[call-overload]


async def trials(session: AsyncSession, campaign_id: int, now: datetime) -> Any:
    """The campaign's trial users, those still on a live trial, those who paid (one statement)."""
    paid_user = sa.exists().where(TX.c.user_id == SUBS.c.user_id, PAID)
    query = (
        sa.select(
            sa.func.count(sa.distinct(SUBS.c.user_id)).label("trial_users"),
            sa.func.count(
                sa.distinct(
                    sa.case((sa.and_(SUBS.c.status.in_(LIVE), SUBS.c.end_date > now), SUBS.c.user_id))
                )
            ).label("active_trials"),
            sa.func.count(sa.distinct(sa.case((paid_user, SUBS.c.user_id)))).label("trial_paid"),
        )
        .select_from(REG.join(SUBS, SUBS.c.user_id == REG.c.user_id))
        .where(REG.c.campaign_id == campaign_id, SUBS.c.is_trial.is_(True))
    )
    return (await session.exec(query)).one()  # type: ignore[call-overload]


async def campaign_figures(session: AsyncSession, totals: CampaignTotals, now: datetime) -> dict[str, Any]:
    """The statistics of one campaign: its running totals and the trials (one statement)."""
    count, kopeks, payers = totals.registrations, totals.revenue_kopeks, totals.paid_users
    avg_first = round(totals.first_payments_kopeks / payers) if payers else 0
    trial = await trials(session, totals.campaign_id, now)
    return {
        "registrations": count,
        "balance_issued_kopeks": totals.balance_kopeks,
        "balance_issued_rubles": totals.balance_kopeks / 100,
        "subscription_issued": totals.subscriptions + totals.tariffs,
        "last_registration": totals.last_registration,
        "total_revenue_kopeks": kopeks,
        "total_revenue_rubles": kopeks / 100,
        "avg_revenue_per_user_kopeks": kopeks // count if count else 0,
        "avg_revenue_per_user_rubles": round(kopeks / count / 100, 2) if count else 0.0,
        "avg_first_payment_kopeks": avg_first,
        "avg_first_payment_rubles": avg_first / 100,
        "trial_users_count": _int(trial.trial_users),
        "active_trials_count": _int(trial.active_trials),
        "conversion_count": payers,
        "paid_users_count": payers,
        "conversion_rate": percent(payers, count),
        "trial_conversion_rate": percent(_int(trial.trial_paid), _int(trial.trial_users)),
    }


def _day(value: Any) -> str:
    return value.isoformat() if isinstance(value, date) else str(value)


async def daily(session: AsyncSession, campaign_id: int, since: datetime) -> dict[str, tuple[int, int]]:
    """Per UTC day since ``since``: registrations and the registered users' revenue."""
    mine = REG.c.campaign_id == campaign_id
    reg_day = sa.func.date(REG.c.created_at)
    registered = sa.select(reg_day.label("day"), sa.func.count().label("n")).where(
        mine, REG.c.created_at >= since
    )
    tx_day = sa.func.date(TX.c.created_at)
    paid = (
        sa.select(tx_day.label("day"), sa.func.sum(TX.c.amount_kopeks).label("n"))
        .select_from(REG.join(TX, TX.c.user_id == REG.c.user_id))
        .where(mine, PAID, TX.c.created_at >= since)
    )
    days: dict[str, tuple[int, int]] = {}
    for row in (await session.exec(registered.group_by(reg_day))).all():  # type: ignore[call-overload]
        days[_day(row.day)] = (_int(row.n), 0)
    for row in (await session.exec(paid.group_by(tx_day))).all():  # type: ignore[call-overload]
        count, _ = days.get(_day(row.day), (0, 0))
        days[_day(row.day)] = (count, _int(row.n))
    return days


async def spending(session: AsyncSession, campaign_id: int) -> int:
    """What the registered users spent on subscriptions (all time)."""
    query = (
        sa.select(sa.func.coalesce(sa.func.sum(TX.c.amount_kopeks), 0))
        .select_from(REG.join(TX, TX.c.user_id == REG.c.user_id))
        .where(REG.c.campaign_id == campaign_id, TX.c.type == "subscription_payment")
    )
    return _int((await session.exec(query)).scalar())  # type: ignore[call-overload]


async def top_registrations(session: AsyncSession, campaign_id: int, limit: int = 10) -> list[Any]:
    """The registered users who paid the most (among equals the latest user first):
    registration, user and revenue columns (the first ``limit`` entries of the paid totals'
    index, read backwards)."""
    payers = sa.inspect(CampaignPayer).local_table
    top = (
        sa.select(payers.c.user_id, payers.c.paid_kopeks.label("kopeks"))
        .where(payers.c.campaign_id == campaign_id)
        .order_by(payers.c.paid_kopeks.desc(), payers.c.user_id.desc())
        .limit(limit)
        .subquery()
    )
    query = (
        sa.select(
            USERS.c.id,
            USERS.c.first_name,
            USERS.c.username,
            USERS.c.status,
            REG.c.created_at,
            top.c.kopeks,
        )
        .select_from(top.join(REG, REG.c.user_id == top.c.user_id).join(USERS, USERS.c.id == REG.c.user_id))
        .order_by(top.c.kopeks.desc(), USERS.c.id.desc())
    )
    return list((await session.exec(query)).all())  # type: ignore[call-overload]


async def top_payers_oracle(session: AsyncSession, campaign_id: int) -> dict[int, int]:
    """What each registered user of the campaign paid through a gateway (the aggregate)."""
    query = (
        sa.select(TX.c.user_id, sa.func.sum(TX.c.amount_kopeks))
        .select_from(REG.join(TX, TX.c.user_id == REG.c.user_id))
        .where(REG.c.campaign_id == campaign_id, PAID)
        .group_by(TX.c.user_id)
    )
    return {int(u): int(k) for u, k in (await session.exec(query)).all()}  # type: ignore[call-overload]


def window(now: datetime, days: int) -> tuple[datetime, datetime]:
    """The last ``days`` days up to ``now`` and the start of the ``days`` before them."""
    return now - timedelta(days=days), now - timedelta(days=2 * days)
