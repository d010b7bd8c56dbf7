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


async def _count(session: AsyncSession, model: type, user_id: int) -> int:
    query = select(func.count()).select_from(model).where(col(model.user_id) == user_id)  # type: ignore[attr-defined]
    return int((await session.exec(query)).one())


async def _transactions(session: AsyncSession, user: User, newest: int) -> tuple[int, list[UserActivityItem]]:
    query = (
        select(Transaction)
        .where(col(Transaction.user_id) == user.id)
        .order_by(col(Transaction.created_at).desc(), col(Transaction.id).desc())
        .limit(newest)
    )
    items = [
        UserActivityItem(
            type="transaction",
            subtype=row.type,
            source=row.payment_method,
            title=row.description,
            amount_kopeks=-abs(row.amount_kopeks) if row.type in EXPENSE_TYPES else row.amount_kopeks,
            timestamp=row.created_at,
            meta={"transaction_id": row.id, "is_completed": row.is_completed},
        )
        for row in (await session.exec(query)).all()
    ]
    return await _count(session, Transaction, user.id or 0), items


async def _subscriptions(
    session: AsyncSession, user: User, newest: int
) -> tuple[int, list[UserActivityItem]]:
    query = (
        select(Subscription)
        .where(col(Subscription.user_id) == user.id)
        .order_by(col(Subscription.created_at).desc(), col(Subscription.id).desc())
        .limit(newest)
    )
    items = [
        UserActivityItem(
            type="event",
            subtype="subscription_created",
            source="subscriptions",
            title="Trial subscription" if row.is_trial else "Subscription",
            timestamp=row.created_at,
            meta={"subscription_id": row.id, "tariff_id": row.tariff_id, "is_trial": row.is_trial},
        )
        for row in (await session.exec(query)).all()
    ]
    return await _count(session, Subscription, user.id or 0), items


async def _messages(session: AsyncSession, user: User, newest: int) -> tuple[int, list[UserActivityItem]]:
    query = (
        select(UserMessage)
        .where(col(UserMessage.user_id) == user.id)
        .order_by(col(UserMessage.created_at).desc(), col(UserMessage.id).desc())
        .limit(newest)
    )
    items = [
        UserActivityItem(
            type="message",
            subtype=row.status,
            source="admin",
            title=row.text,
            timestamp=row.created_at,
            meta={"message_id": row.id, "sent_by": row.sent_by, "error": row.error},
        )
        for row in (await session.exec(query)).all()
    ]
    return await _count(session, UserMessage, user.id or 0), items


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
