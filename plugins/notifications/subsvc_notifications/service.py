"""The rules of the subscription event log: recording a reported event (its user, subscription
and transaction must exist), naming the user, and listing the log. No HTTP in here."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy import Integer, Select, bindparam, func
from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_billing.api import Transaction
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc.api import INT32_MAX, INT64_MAX
from subsvc.db import in_list, utcnow
from subsvc.events import EventBus
from subsvc_notifications.models import SubscriptionEvent
from subsvc_notifications.schemas import (
    PROMOCODE_ACTIVATION,
    PROMOCODE_BALANCE_KEYS,
    SubscriptionEventCreate,
    SubscriptionEventRecorded,
    SubscriptionEventResponse,
)

EVENT_RECORDED = "subscription_event.recorded"
USER_NOT_FOUND = "User not found"
SUBSCRIPTION_NOT_FOUND = "Subscription not found"
TRANSACTION_NOT_FOUND = "Transaction not found"

EVENTS = SubscriptionEvent.__table__  # type: ignore[attr-defined, unused-ignore]
USERS = User.__table__  # type: ignore[attr-defined, unused-ignore]
SUBSCRIPTIONS = Subscription.__table__  # type: ignore[attr-defined, unused-ignore]
TRANSACTIONS = Transaction.__table__  # type: ignore[attr-defined, unused-ignore]
USER_COLUMNS = ("id", "first_name", "last_name", "username", "messenger_id", "email")
USER_PREFIX = "user__"  # the user's columns in a row that also has the event's


class ReferenceNotFound(LookupError):
    """The user, subscription or transaction an event names does not exist; the message is
    the reference's 404 text."""


def fits_row_id(value: int | None) -> bool:
    """Can a row id (a 32-bit integer column) have this value?"""
    return value is not None and 1 <= value <= INT32_MAX


def full_name(user: Mapping[str, Any]) -> str:
    """The user's name as the event log shows it: "first last", else the username, else
    ``ID<messenger id>``, else the e-mail's local part, else ``User<id>``."""
    name = " ".join(part for part in (user["first_name"], user["last_name"]) if part).strip()
    if name:
        return name
    if user["username"]:
        return str(user["username"])
    if user["messenger_id"] is not None:
        return f"ID{user['messenger_id']}"
    if user["email"]:
        return str(user["email"]).split("@", 1)[0]
    return f"User{user['id']}"


def _extra(event_type: str, stored: Mapping[str, Any] | None) -> dict[str, Any]:
    """The ``extra`` of a record: ``{}`` when none was stored; a promo-code activation always
    shows its balance before and after (null when not reported)."""
    extra = dict(stored or {})
    if event_type == PROMOCODE_ACTIVATION:
        for key in PROMOCODE_BALANCE_KEYS:
            extra.setdefault(key, None)
    return extra


def record_of(row: Mapping[str, Any]) -> SubscriptionEventResponse:
    """A stored event (``row``: its columns plus the user's, prefixed ``user__``)."""
    user = {name: row[f"{USER_PREFIX}{name}"] for name in USER_COLUMNS}
    return SubscriptionEventResponse(
        id=row["id"],
        event_type=row["event_type"],
        user_id=row["user_id"],
        user_full_name=full_name(user),
        user_username=user["username"],
        user_messenger_id=user["messenger_id"],
        subscription_id=row["subscription_id"],
        transaction_id=row["transaction_id"],
        amount_kopeks=row["amount_kopeks"],
        currency=row["currency"],
        message=row["message"],
        occurred_at=row["occurred_at"],
        created_at=row["created_at"],
        extra=_extra(row["event_type"], row["extra"]),
    )


@functools.cache
def _references() -> Select[Any]:
    """The user's columns and whether the named subscription and transaction exist: one round
    trip for every check of a new event. No row: no such user."""
    return sa.select(
        *(USERS.c[name].label(f"{USER_PREFIX}{name}") for name in USER_COLUMNS),
        sa.exists()
        .where(SUBSCRIPTIONS.c.id == bindparam("subscription_id", type_=Integer))
        .label("subscription_exists"),
        sa.exists()
        .where(TRANSACTIONS.c.id == bindparam("transaction_id", type_=Integer))
        .label("transaction_exists"),
    ).where(USERS.c.id == bindparam("user_id", type_=Integer))


async def _references_of(session: AsyncSession, data: SubscriptionEventCreate) -> Mapping[str, Any]:
    """The event's user (its columns, prefixed ``user__``); :class:`ReferenceNotFound` for an
    unknown user, subscription or transaction, checked in that order."""
    if not fits_row_id(data.user_id):
        raise ReferenceNotFound(USER_NOT_FOUND)
    params = {
        "user_id": data.user_id,
        "subscription_id": data.subscription_id if fits_row_id(data.subscription_id) else None,
        "transaction_id": data.transaction_id if fits_row_id(data.transaction_id) else None,
    }
    found = (await session.exec(_references(), params=params)).mappings().first()  # type: ignore[call-overload]
    if found is None:
        raise ReferenceNotFound(USER_NOT_FOUND)
    if data.subscription_id is not None and not found["subscription_exists"]:
        raise ReferenceNotFound(SUBSCRIPTION_NOT_FOUND)
    if data.transaction_id is not None and not found["transaction_exists"]:
        raise ReferenceNotFound(TRANSACTION_NOT_FOUND)
    return cast(Mapping[str, Any], found)


async def record_event(
    session: AsyncSession, events: EventBus, data: SubscriptionEventCreate
) -> SubscriptionEventResponse:
    """Store a reported event and publish ``subscription_event.recorded`` in the same
    transaction. Raises :class:`ReferenceNotFound` (nothing stored) for an unknown user,
    subscription or transaction, checked in that order."""
    found = await _references_of(session, data)
    now = utcnow()
    event = SubscriptionEvent(
        **data.model_dump(exclude={"occurred_at", "extra"}),
        occurred_at=data.occurred_at or now,
        created_at=now,
        extra=data.extra or None,
    )
    session.add(event)
    try:
        await session.flush()
    except IntegrityError:
        # a row it names was deleted since it was read: start over and say which
        await session.rollback()
        await _references_of(session, data)
        raise
    record = record_of({**event.model_dump(), **found})
    events.publish(session, EVENT_RECORDED, SubscriptionEventRecorded(**record.model_dump()))
    return record


@dataclass(frozen=True)
class EventFilter:
    """The filters of the event log; ``None`` means "any". ``event_types`` is any-of."""

    event_types: tuple[str, ...] | None = None
    user_id: int | None = None
    date_from: datetime | None = None
    date_to: datetime | None = None

    def shape(self) -> tuple[bool, bool, bool, bool]:
        """Which filters are set: the key of the prebuilt statements."""
        return (
            self.event_types is not None,
            self.user_id is not None,
            self.date_from is not None,
            self.date_to is not None,
        )

    def params(self) -> dict[str, Any]:
        """The bound values of the filters that are set."""
        values = {
            "event_types": list(self.event_types) if self.event_types is not None else None,
            "user_id": self.user_id,
            "date_from": self.date_from,
            "date_to": self.date_to,
        }
        return {name: value for name, value in values.items() if value is not None}


def _conditions(dialect: str, shape: tuple[bool, bool, bool, bool]) -> list[sa.ColumnElement[bool]]:
    by_type, by_user, since, until = shape
    found: list[sa.ColumnElement[bool]] = []
    if by_type:
        found.append(in_list(EVENTS.c.event_type, "event_types", dialect))
    if by_user:
        found.append(EVENTS.c.user_id == bindparam("user_id", type_=Integer))
    if since:
        found.append(EVENTS.c.occurred_at >= bindparam("date_from", type_=EVENTS.c.occurred_at.type))
    if until:
        found.append(EVENTS.c.occurred_at <= bindparam("date_to", type_=EVENTS.c.occurred_at.type))
    return found


@functools.cache
def _page(dialect: str, shape: tuple[bool, bool, bool, bool]) -> Select[Any]:
    """One page of the log with each event's user, newest first; built once per filter shape."""
    return (
        sa.select(
            *EVENTS.c,
            *(USERS.c[name].label(f"{USER_PREFIX}{name}") for name in USER_COLUMNS),
        )
        .select_from(EVENTS.join(USERS, USERS.c.id == EVENTS.c.user_id))
        .where(*_conditions(dialect, shape))
        .order_by(EVENTS.c.occurred_at.desc(), EVENTS.c.id.desc())
        .limit(bindparam("limit"))
        .offset(bindparam("offset"))
    )


@functools.cache
def _count(dialect: str, shape: tuple[bool, bool, bool, bool]) -> Select[Any]:
    return sa.select(func.count()).select_from(EVENTS).where(*_conditions(dialect, shape))


async def list_events(
    session: AsyncSession, filters: EventFilter, limit: int, offset: int
) -> tuple[int, list[SubscriptionEventResponse]]:
    """How many events match, and one page of them (newest ``occurred_at`` first). A page
    that ends before ``limit`` gives the total itself; only a full or empty page is counted."""
    if filters.user_id is not None and not fits_row_id(filters.user_id):
        return 0, []  # no row id can match
    if filters.event_types is not None and not filters.event_types:
        return 0, []
    dialect = session.get_bind().dialect.name
    shape = filters.shape()
    params = filters.params()
    rows: Sequence[Any] = []
    if offset <= INT64_MAX:  # beyond it no database takes the number, and no page is there
        page = await session.exec(_page(dialect, shape), params={**params, "limit": limit, "offset": offset})  # type: ignore[call-overload]
        rows = page.mappings().all()
    items = [record_of(row) for row in rows]
    if (items and len(items) < limit) or (not items and offset == 0):
        return offset + len(items), items
    total = (await session.exec(_count(dialect, shape), params=params)).scalar_one()  # type: ignore[call-overload]
    return int(total), items
