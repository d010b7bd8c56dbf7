"""The user's activity timeline: a fan-in of what the installed plugins record.

Sources: ``transaction`` (billing's transactions; ``subtype`` the type, money going out
negative), ``event`` (``subscription_created``: each subscription's creation), ``message``
(administrators' messages to the user, ``subtype`` their delivery status) and
``cabinet_login`` (the user's last cabinet login: only the last one is kept). From each
source the newest ``offset + limit`` entries are read, merged newest first and cut to the
page; ``total`` counts every entry of the chosen sources.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_billing.api import Transaction
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc_cabinet_admin_users.detail import EXPENSE_TYPES
from subsvc_cabinet_admin_users.models import UserMessage
from subsvc_cabinet_admin_users.schemas import UserActivityItem

TYPES = ("transaction", "event", "message", "cabinet_login")


@dataclass(frozen=True)
class Page:
    total: int
    items: list[UserActivityItem]


Source = Callable[[AsyncSession, User, int], Awaitable[tuple[int, list[UserActivityItem]]]]


async def _newest(
    session: AsyncSession, model: Any, user: User, newest: int, item: Callable[[Any], UserActivityItem]
) -> tuple[int, list[UserActivityItem]]:
    """How many rows of ``model`` the user has, and the ``newest`` of them (newest first) as
    ``item`` makes them."""
    query = (
        select(model)
        .where(col(model.user_id) == user.id)
        .order_by(col(model.created_at).desc(), col(model.id).desc())
        .limit(newest)
    )
    items = [item(row) for row in (await session.exec(query)).all()]
    count = select(func.count()).select_from(model).where(col(model.user_id) == user.id)
    return int((await session.exec(count)).one()), items


def _transaction(row: Transaction) -> UserActivityItem:
    return UserActivityItem(
        type="transaction",
        subtype=row.type,
        source=row.payment_method,
        title=row.description,
        amount_kopeks=-abs(row.amount_kopeks) if row.type in EXPENSE_TYPES else row.amount_kopeks,
        timestamp=row.created_at,
        meta={"transaction_id": row.id, "is_completed": row.is_completed},
    )


def _subscription(row: Subscription) -> UserActivityItem:
    return UserActivityItem(
        type="event",
        subtype="subscription_created",
        source="subscriptions",
        title="Trial subscription" if row.is_trial else "Subscription",
        timestamp=row.created_at,
        meta={"subscription_id": row.id, "tariff_id": row.tariff_id, "is_trial": row.is_trial},
    )


def _message(row: UserMessage) -> UserActivityItem:
    return UserActivityItem(
        type="message",
        subtype=row.status,
        source="admin",
        title=row.text,
        timestamp=row.created_at,
        meta={"message_id": row.id, "sent_by": row.sent_by, "error": row.error},
    )


async def _transactions(session: AsyncSession, user: User, newest: int) -> tuple[int, list[UserActivityItem]]:
    return await _newest(session, Transaction, user, newest, _transaction)


async def _subscriptions(
    session: AsyncSession, user: User, newest: int
) -> tuple[int, list[UserActivityItem]]:
    return await _newest(session, Subscription, user, newest, _subscription)


async def _messages(session: AsyncSession, user: User, newest: int) -> tuple[int, list[UserActivityItem]]:
    return await _newest(session, UserMessage, user, newest, _message)


async def _login(session: AsyncSession, user: User, newest: int) -> tuple[int, list[UserActivityItem]]:
    if user.cabinet_last_login is None:
        return 0, []
    item = UserActivityItem(type="cabinet_login", source="cabinet", timestamp=user.cabinet_last_login)
    return 1, [item]


SOURCES: dict[str, Source] = {
    "transaction": _transactions,
    "event": _subscriptions,
    "message": _messages,
    "cabinet_login": _login,
}


async def timeline(
    session: AsyncSession, user: User, types: Collection[str] | None, offset: int, limit: int
) -> Page:
    """One page of the user's timeline, newest first, of the given types (``None``: all)."""
    chosen = [name for name in TYPES if types is None or name in types]
    total, merged = 0, []
    for name in chosen:
        count, items = await SOURCES[name](session, user, offset + limit)
        total += count
        merged.extend(items)
    merged.sort(key=lambda item: item.timestamp, reverse=True)
    return Page(total=total, items=merged[offset : offset + limit])
