"""Running totals of the campaigns, so that a statistic reads one row (or a month of day
rows) instead of aggregating the registrations and their payments.

Each counter changes in the transaction of what it counts: a registration in the
attribution's; a gateway payment (``transaction.created`` of a completed gateway
``deposit``) in the payment's, through an in-transaction event subscriber; a user's payments
made before the registration in the attribution's. ``campaign_payments`` holds one row per
counted transaction (its id the key): a transaction is counted once, whichever path sees
it first; ``campaign_payers`` the sum per registered user (the chart's top payers).
:func:`backfill` computes every counter from the rows (the migrations, the bench). The
aggregate queries of :mod:`subsvc_campaigns.stats` stay as the tests' oracle."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, CursorResult
from sqlalchemy.orm import Session
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_billing.api import DEPOSIT, TRANSACTION_CREATED

from subsvc.events import Event
from subsvc_campaigns.models import (
    CampaignDay,
    CampaignPayer,
    CampaignPayment,
    CampaignRegistration,
    CampaignTotals,
)
from subsvc_campaigns.stats import NOT_GATEWAYS, PAID, TX

TOTALS = cast(sa.Table, sa.inspect(CampaignTotals).local_table)
DAYS = cast(sa.Table, sa.inspect(CampaignDay).local_table)
PAYMENTS = cast(sa.Table, sa.inspect(CampaignPayment).local_table)
PAYERS = cast(sa.Table, sa.inspect(CampaignPayer).local_table)
REG = cast(sa.Table, sa.inspect(CampaignRegistration).local_table)
Bind = Session | Connection


def _insert(bind: Bind, table: sa.Table) -> Any:
    dialect = bind.get_bind().dialect.name if isinstance(bind, Session) else bind.dialect.name
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)


def _add(bind: Bind, table: sa.Table, keys: dict[str, Any], **deltas: int) -> None:
    """Upsert ``table``'s row ``keys``, adding ``deltas`` to its counters."""
    statement = _insert(bind, table).values({**keys, **deltas})
    bind.execute(
        statement.on_conflict_do_update(
            index_elements=list(keys),
            set_={name: table.c[name] + statement.excluded[name] for name in deltas},
        )
    )


def is_revenue(type_: str, completed: bool, method: str | None) -> bool:
    """Does a transaction count as revenue (a completed deposit through a gateway)?"""
    return type_ == DEPOSIT and completed and method is not None and method not in NOT_GATEWAYS


def count_registration(
    bind: Bind, campaign_id: int, bonus_type: str, balance_kopeks: int, at: datetime
) -> None:
    """Count a new registration of ``campaign_id`` (its bonus, its day)."""
    _add(
        bind,
        TOTALS,
        {"campaign_id": campaign_id},
        registrations=1,
        balance_kopeks=balance_kopeks,
        subscriptions=int(bonus_type == "subscription"),
        tariffs=int(bonus_type == "tariff"),
    )
    bind.execute(
        TOTALS.update()
        .where(
            TOTALS.c.campaign_id == campaign_id,
            sa.or_(TOTALS.c.last_registration.is_(None), TOTALS.c.last_registration < at),
        )
        .values(last_registration=at)
    )
    _add(bind, DAYS, {"campaign_id": campaign_id, "day": at.date().isoformat()}, registrations=1)


def count_payment(
    bind: Bind, campaign_id: int, user_id: int, transaction_id: int, kopeks: int, day: date
) -> None:
    """Count a payment of a registered user once (its id is the key), in the campaign's
    totals, its day and the user's paid total."""
    values = {
        "transaction_id": transaction_id,
        "campaign_id": campaign_id,
        "user_id": user_id,
        "amount_kopeks": kopeks,
    }
    statement = (
        _insert(bind, PAYMENTS).values(values).on_conflict_do_nothing(index_elements=["transaction_id"])
    )
    if not cast(CursorResult[Any], bind.execute(statement)).rowcount:
        return
    payer = {"campaign_id": campaign_id, "user_id": user_id}
    earlier = sa.select(PAYERS.c.paid_kopeks).where(*(PAYERS.c[k] == v for k, v in payer.items()))
    first = bind.execute(earlier).first() is None
    _add(bind, PAYERS, payer, paid_kopeks=kopeks)
    _add(
        bind,
        TOTALS,
        {"campaign_id": campaign_id},
        revenue_kopeks=kopeks,
        paid_users=int(first),
        first_payments_kopeks=kopeks if first else 0,
    )
    _add(bind, DAYS, {"campaign_id": campaign_id, "day": day.isoformat()}, revenue_kopeks=kopeks)


def count_user_payments(bind: Bind, campaign_id: int, user_id: int, payments: Sequence[Any]) -> None:
    """Count the payments (``id, amount_kopeks, created_at``) a user made before registering,
    oldest first (the first payment is the lowest id)."""
    for row in sorted(payments, key=lambda p: p.id):
        count_payment(bind, campaign_id, user_id, row.id, row.amount_kopeks, row.created_at.date())


def on_commit(session: Session, events: Sequence[Event]) -> None:
    """In the publishing transaction: count the gateway payments of registered users."""
    for event in events:
        payload = event.payload
        if event.type != TRANSACTION_CREATED or not is_revenue(
            payload["type"], payload["is_completed"], payload["payment_method"]
        ):
            continue
        user_id = int(payload["user_id"])
        campaign_id = session.execute(sa.select(REG.c.campaign_id).where(REG.c.user_id == user_id)).scalar()
        if campaign_id is not None:
            at = datetime.fromisoformat(payload["created_at"])
            count_payment(
                session,
                campaign_id,
                user_id,
                int(payload["transaction_id"]),
                payload["amount_kopeks"],
                at.date(),
            )


def forget_user(bind: Bind, user_id: int) -> None:
    """Take a user about to be deleted out of the totals: the registration (its bonus, its
    day), the counted payments (their days, the paid user, the first payment), the payer."""
    registration = bind.execute(sa.select(REG).where(REG.c.user_id == user_id)).first()
    if registration is None:
        return
    campaign_id = registration.campaign_id
    counted = (
        sa.select(PAYMENTS.c.amount_kopeks, TX.c.created_at)
        .join(TX, TX.c.id == PAYMENTS.c.transaction_id)
        .where(PAYMENTS.c.campaign_id == campaign_id, PAYMENTS.c.user_id == user_id)
        .order_by(PAYMENTS.c.transaction_id)
    )
    paid = bind.execute(counted).all()
    campaign = {"campaign_id": campaign_id}
    _add(
        bind,
        TOTALS,
        campaign,
        registrations=-1,
        balance_kopeks=-registration.balance_bonus_kopeks,
        subscriptions=-int(registration.bonus_type == "subscription"),
        tariffs=-int(registration.bonus_type == "tariff"),
        revenue_kopeks=-sum(row.amount_kopeks for row in paid),
        paid_users=-int(bool(paid)),
        first_payments_kopeks=-paid[0].amount_kopeks if paid else 0,
    )
    _add(bind, DAYS, {**campaign, "day": registration.created_at.date().isoformat()}, registrations=-1)
    for row in paid:
        _add(
            bind,
            DAYS,
            {**campaign, "day": row.created_at.date().isoformat()},
            revenue_kopeks=-row.amount_kopeks,
        )
    bind.execute(PAYMENTS.delete().where(PAYMENTS.c.user_id == user_id))
    bind.execute(PAYERS.delete().where(PAYERS.c.campaign_id == campaign_id, PAYERS.c.user_id == user_id))
    others = sa.select(sa.func.max(REG.c.created_at)).where(
        REG.c.campaign_id == campaign_id, REG.c.user_id != user_id
    )
    bind.execute(
        TOTALS.update()
        .where(TOTALS.c.campaign_id == campaign_id)
        .values(last_registration=others.scalar_subquery())
    )


async def by_campaign(session: AsyncSession, ids: Sequence[int]) -> dict[int, CampaignTotals]:
    """The totals of each campaign in ``ids`` that has any (one statement)."""
    if not ids:
        return {}
    query = select(CampaignTotals).where(col(CampaignTotals.campaign_id).in_(ids))
    return {row.campaign_id: row for row in (await session.exec(query)).all()}


async def of(session: AsyncSession, campaign_id: int) -> CampaignTotals:
    """One campaign's totals (zeros when it has none yet)."""
    return (await by_campaign(session, [campaign_id])).get(campaign_id) or CampaignTotals(
        campaign_id=campaign_id
    )


async def daily(session: AsyncSession, campaign_id: int, since: datetime) -> dict[str, tuple[int, int]]:
    """Per UTC day from ``since``'s day: registrations and revenue (the days with either)."""
    query = select(CampaignDay).where(
        col(CampaignDay.campaign_id) == campaign_id, col(CampaignDay.day) >= since.date().isoformat()
    )
    return {row.day: (row.registrations, row.revenue_kopeks) for row in (await session.exec(query)).all()}


def _day(column: Any) -> Any:
    return sa.cast(sa.func.date(column), sa.String(10))


def backfill(connection: Connection) -> None:
    """Compute every counter from the registrations and the transactions, replacing what the
    counter tables hold (a bench that wrote registrations directly)."""
    backfill_totals(connection)
    backfill_payers(connection)


def backfill_payers(connection: Connection) -> None:
    """Sum each user's counted payments into ``campaign_payers`` (migration ``campaigns_0004``)."""
    connection.execute(PAYERS.delete())
    paid = sa.select(PAYMENTS.c.campaign_id, PAYMENTS.c.user_id, sa.func.sum(PAYMENTS.c.amount_kopeks))
    connection.execute(
        PAYERS.insert().from_select(
            ["campaign_id", "user_id", "paid_kopeks"],
            paid.group_by(PAYMENTS.c.campaign_id, PAYMENTS.c.user_id),
        )
    )


def backfill_totals(connection: Connection) -> None:
    """Compute the campaign, day and counted-payment rows from the registrations and the
    transactions, replacing what they hold (migration ``campaigns_0002``)."""
    for table in (PAYMENTS, DAYS, TOTALS):
        connection.execute(table.delete())
    counted = sa.select(TX.c.id, REG.c.campaign_id, TX.c.user_id, TX.c.amount_kopeks).select_from(
        REG.join(TX, TX.c.user_id == REG.c.user_id)
    )
    connection.execute(
        PAYMENTS.insert().from_select(
            ["transaction_id", "campaign_id", "user_id", "amount_kopeks"], counted.where(PAID)
        )
    )
    registered = sa.select(
        REG.c.campaign_id,
        sa.func.count(),
        sa.func.coalesce(sa.func.sum(REG.c.balance_bonus_kopeks), 0),
        sa.func.coalesce(sa.func.sum(sa.case((REG.c.bonus_type == "subscription", 1), else_=0)), 0),
        sa.func.coalesce(sa.func.sum(sa.case((REG.c.bonus_type == "tariff", 1), else_=0)), 0),
        sa.func.max(REG.c.created_at),
    ).group_by(REG.c.campaign_id)
    columns = [
        "campaign_id",
        "registrations",
        "balance_kopeks",
        "subscriptions",
        "tariffs",
        "last_registration",
    ]
    connection.execute(TOTALS.insert().from_select(columns, registered))
    mine = PAYMENTS.c.campaign_id == TOTALS.c.campaign_id
    firsts = sa.select(sa.func.min(PAYMENTS.c.transaction_id)).group_by(PAYMENTS.c.user_id)
    connection.execute(
        TOTALS.update().values(
            revenue_kopeks=sa.select(sa.func.coalesce(sa.func.sum(PAYMENTS.c.amount_kopeks), 0))
            .where(mine)
            .scalar_subquery(),
            paid_users=sa.select(sa.func.count(sa.distinct(PAYMENTS.c.user_id)))
            .where(mine)
            .scalar_subquery(),
            first_payments_kopeks=sa.select(sa.func.coalesce(sa.func.sum(PAYMENTS.c.amount_kopeks), 0))
            .where(mine, PAYMENTS.c.transaction_id.in_(firsts))
            .scalar_subquery(),
        )
    )
    reg_days = sa.select(
        REG.c.campaign_id.label("campaign_id"),
        _day(REG.c.created_at).label("day"),
        sa.literal(1).label("registrations"),
        sa.literal(0).label("revenue_kopeks"),
    )
    pay_days = sa.select(
        PAYMENTS.c.campaign_id,
        _day(TX.c.created_at),
        sa.literal(0),
        PAYMENTS.c.amount_kopeks,
    ).select_from(PAYMENTS.join(TX, TX.c.id == PAYMENTS.c.transaction_id))
    both = sa.union_all(reg_days, pay_days).subquery()
    summed = sa.select(
        both.c.campaign_id, both.c.day, sa.func.sum(both.c.registrations), sa.func.sum(both.c.revenue_kopeks)
    ).group_by(both.c.campaign_id, both.c.day)
    connection.execute(
        DAYS.insert().from_select(["campaign_id", "day", "registrations", "revenue_kopeks"], summed)
    )
