"""Reading lists a page at a time: the tickets (newest change first, an index serving every
filter), then for the whole page one query each for message counts, last messages and users."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_users.api import User

from subsvc_tickets.models import Ticket, TicketMessage
from subsvc_tickets.service import STATUSES

USER_FIELDS = ("id", "messenger_id", "email", "username", "first_name", "last_name")


@dataclass(frozen=True)
class Filters:
    """The list's conditions (each one optional)."""

    user_id: int | None = None
    status: str | None = None
    priority: str | None = None

    def conditions(self) -> list[Any]:
        found: list[Any] = []
        if self.user_id is not None:
            found.append(col(Ticket.user_id) == self.user_id)
        if self.status is not None:
            found.append(col(Ticket.status) == self.status)
        if self.priority is not None:
            found.append(col(Ticket.priority) == self.priority)
        return found


async def tickets_page(session: AsyncSession, filters: Filters, limit: int, offset: int) -> Sequence[Ticket]:
    """A page of tickets, last changed first (then the highest id)."""
    query = (
        select(Ticket)
        .where(*filters.conditions())
        .order_by(col(Ticket.updated_at).desc(), col(Ticket.id).desc())
        .limit(limit)
        .offset(offset)
    )
    return (await session.exec(query)).scalars().all()  # type: ignore[call-overload,no-any-return]


async def count_tickets(session: AsyncSession, filters: Filters) -> int:
    query = select(func.count()).select_from(Ticket).where(*filters.conditions())
    return int((await session.exec(query)).scalar_one())  # type: ignore[call-overload]


async def message_counts(session: AsyncSession, ticket_ids: Sequence[int]) -> dict[int, int]:
    if not ticket_ids:
        return {}
    query = (
        select(col(TicketMessage.ticket_id), func.count())
        .where(col(TicketMessage.ticket_id).in_(ticket_ids))
        .group_by(col(TicketMessage.ticket_id))
    )
    return {ticket_id: count for ticket_id, count in (await session.exec(query)).all()}  # type: ignore[call-overload]


async def last_messages(session: AsyncSession, ticket_ids: Sequence[int]) -> dict[int, TicketMessage]:
    if not ticket_ids:
        return {}
    latest = (
        select(func.max(TicketMessage.id))
        .where(col(TicketMessage.ticket_id).in_(ticket_ids))
        .group_by(col(TicketMessage.ticket_id))
    )
    query = select(TicketMessage).where(col(TicketMessage.id).in_(latest))
    found = (await session.exec(query)).scalars().all()  # type: ignore[call-overload]
    return {message.ticket_id: message for message in found}


async def users_info(session: AsyncSession, user_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """The users' identifying fields (``subsvc_users.api.User``, read only), by id."""
    if not user_ids:
        return {}
    columns = [getattr(User, name) for name in USER_FIELDS]
    query = select(*columns).where(col(User.id).in_(set(user_ids)))
    rows = (await session.exec(query)).all()  # type: ignore[call-overload]
    return {row[0]: dict(zip(USER_FIELDS, row, strict=True)) for row in rows}


async def status_counts(session: AsyncSession) -> dict[str, int]:
    """How many tickets have each status (every status present, zero when none)."""
    query = select(col(Ticket.status), func.count()).group_by(col(Ticket.status))
    counts = dict.fromkeys(STATUSES, 0)
    for status, count in (await session.exec(query)).all():  # type: ignore[call-overload]
        counts[status] = count
    return counts
