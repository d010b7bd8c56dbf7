"""What the subscriptions table says about a server: who is connected, how many live
subscriptions connect to its squad. No HTTP in here.

A subscription connects to a server when the server's squad uuid is in its
``connected_squads`` (a JSON array). PostgreSQL answers ``connected_squads::jsonb @> [uuid]``
from the GIN index this plugin's migration creates; SQLite looks into each array with
``json_each`` (the embedded database holds few subscriptions).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import ColumnElement
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import SQLModel, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar
from subsvc_subscriptions.api import Subscription, SubscriptionStatus
from subsvc_users.api import User

from subsvc.db import utcnow
from subsvc.db.rows import Rows
from subsvc_servers.models import Server

SUBSCRIPTIONS = SQLModel.metadata.tables[Subscription.__tablename__]
USERS = SQLModel.metadata.tables[User.__tablename__]
SERVERS = SQLModel.metadata.tables[Server.__tablename__]
LIVE = (SubscriptionStatus.ACTIVE.value, SubscriptionStatus.TRIAL.value)


def dialect_of(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


def connects(squad: ColumnElement[Any], dialect: str) -> ColumnElement[bool]:
    """The subscription row's ``connected_squads`` holds ``squad`` (a column or parameter)."""
    squads = SUBSCRIPTIONS.c.connected_squads
    if dialect == "postgresql":
        return sa.cast(squads, JSONB).op("@>")(sa.func.jsonb_build_array(sa.cast(squad, sa.Text)))
    each = sa.func.json_each(squads).table_valued("value")
    return sa.select(1).select_from(each).where(each.c.value == squad).correlate_except(each).exists()


def _live() -> ColumnElement[bool]:
    """Stored ``active`` or ``trial`` and not yet ended (``actual_status`` active or trial)."""
    return sa.and_(SUBSCRIPTIONS.c.status.in_(LIVE), SUBSCRIPTIONS.c.end_date > sa.bindparam("now"))


def _trial() -> ColumnElement[bool]:
    return sa.or_(SUBSCRIPTIONS.c.is_trial, SUBSCRIPTIONS.c.status == SubscriptionStatus.TRIAL.value)


# --- connected users --------------------------------------------------------------------------


@functools.cache
def _connected(dialect: str) -> sa.Subquery:
    """Per connected user, the newest subscription whose squads hold ``:squad``."""
    squad = sa.bindparam("squad", type_=sa.String)
    return (
        sa.select(SUBSCRIPTIONS.c.user_id, sa.func.max(SUBSCRIPTIONS.c.id).label("subscription_id"))
        .where(connects(squad, dialect))
        .group_by(SUBSCRIPTIONS.c.user_id)
        .subquery("connected")
    )


@functools.cache
def _connected_total(dialect: str) -> SelectOfScalar[int]:
    return select(sa.func.count()).select_from(_connected(dialect))


@functools.cache
def _connected_page(dialect: str) -> Rows:
    connected = _connected(dialect)
    return (
        Rows(
            USERS.c.id,
            USERS.c.messenger_id,
            USERS.c.username,
            USERS.c.first_name,
            USERS.c.last_name,
            USERS.c.status,
            USERS.c.balance_kopeks,
            SUBSCRIPTIONS.c.id.label("subscription_id"),
            SUBSCRIPTIONS.c.status.label("subscription_status"),
            SUBSCRIPTIONS.c.end_date.label("subscription_end_date"),
        )
        .select_from(connected)
        .join(USERS, USERS.c.id == connected.c.user_id)
        .join(SUBSCRIPTIONS, SUBSCRIPTIONS.c.id == connected.c.subscription_id)
        .order_by(USERS.c.id)
        .limit(sa.bindparam("limit"))
        .offset(sa.bindparam("offset"))
    )


async def connected_users(
    session: AsyncSession, squad_uuid: str, limit: int, offset: int
) -> tuple[list[dict[str, Any]], int]:
    """A page of the users connected to the squad (by user id; each row by column label) and
    how many there are."""
    dialect = dialect_of(session)
    params = {"squad": squad_uuid, "limit": limit, "offset": offset}
    total = (await session.exec(_connected_total(dialect), params=params)).one()
    if total <= offset:
        return [], total
    page = _connected_page(dialect)
    labels = page.selected_columns.keys()
    rows = (await session.exec(page, params=params)).all()
    return [dict(zip(labels, row, strict=True)) for row in rows], total


# --- counts -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SquadCounts:
    """Live subscriptions connected to one squad: paid ones and trials."""

    active: int = 0
    trial: int = 0


@functools.cache
def _squad_counts(dialect: str) -> Rows:
    squad = sa.bindparam("squad", type_=sa.String)
    trial = sa.func.coalesce(sa.func.sum(sa.case((_trial(), 1), else_=0)), 0)
    return Rows(sa.func.count(), trial).where(_live(), connects(squad, dialect))


async def squad_counts(session: AsyncSession, squad_uuid: str) -> SquadCounts:
    total, trial = (
        await session.exec(_squad_counts(dialect_of(session)), params={"squad": squad_uuid, "now": utcnow()})
    ).one()
    return SquadCounts(active=int(total) - int(trial), trial=int(trial))


@functools.cache
def _current_users(dialect: str) -> Rows:
    """Every server with its stored counter and the number of users it serves now."""
    users = (
        sa.select(sa.func.count(sa.distinct(SUBSCRIPTIONS.c.user_id)))
        .where(_live(), connects(SERVERS.c.squad_uuid, dialect))
        .scalar_subquery()
    )
    return Rows(SERVERS.c.id, SERVERS.c.current_users, users).order_by(SERVERS.c.id)


_SET_COUNT = (
    sa.update(SERVERS)
    .where(SERVERS.c.id == sa.bindparam("server_id"))
    .values(current_users=sa.bindparam("users"))
)


async def recount(session: AsyncSession, now: datetime | None = None) -> int:
    """Set every server's ``current_users`` to the users with a live subscription on its
    squad; answers how many counters changed."""
    params = {"now": now or utcnow()}
    rows = (await session.exec(_current_users(dialect_of(session)), params=params)).all()
    changed = [{"server_id": id_, "users": users} for id_, stored, users in rows if stored != users]
    if changed:
        await (await session.connection()).execute(_SET_COUNT, changed)
    return len(changed)
