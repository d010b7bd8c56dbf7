"""What other plugins may use of tickets (the rest of ``subsvc_tickets`` is private).

- :data:`TicketStatus`, :data:`WAITING_STATUSES`: the statuses, and those waiting for support;
- :func:`ticket_owner`: whose ticket it is;
- :func:`waiting_tickets` / :class:`WaitingTicket`: the tickets waiting for support since
  before a moment (the SLA reminders), in id order, a page at a time;
- the events (``ticket.created``, ``ticket.message_added``, ``ticket.status_changed``) and
  their payload models.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import select
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc_tickets.events import (
    MESSAGE_ADDED,
    STATUS_CHANGED,
    TICKET_CREATED,
    TicketCreated,
    TicketMessageAdded,
    TicketStatusChanged,
)
from subsvc_tickets.models import Ticket
from subsvc_tickets.service import WAITING_STATUSES, waiting_filter

TicketStatus = Literal["open", "answered", "pending", "closed"]


@dataclass(frozen=True)
class WaitingTicket:
    """A ticket waiting for support since ``waiting_since`` (its last change)."""

    id: int
    user_id: int
    title: str
    status: str
    waiting_since: datetime


async def ticket_owner(session: AsyncSession, ticket_id: int) -> int | None:
    """The id of the ticket's user; ``None`` when there is no such ticket."""
    query = select(col(Ticket.user_id)).where(col(Ticket.id) == ticket_id)
    owner: int | None = (await session.exec(query)).scalar_one_or_none()  # type: ignore[call-overload]
    return owner


async def waiting_tickets(
    session: AsyncSession, *, waiting_before: datetime, after_id: int = 0, limit: int = 500
) -> list[WaitingTicket]:
    """Tickets ``open`` or ``pending`` last changed at or before ``waiting_before``, with an id
    above ``after_id``, in id order, at most ``limit``."""
    query = (
        select(
            col(Ticket.id), col(Ticket.user_id), col(Ticket.title), col(Ticket.status), col(Ticket.updated_at)
        )
        .where(waiting_filter(), col(Ticket.updated_at) <= waiting_before, col(Ticket.id) > after_id)
        .order_by(col(Ticket.id))
        .limit(limit)
    )
    rows = (await session.exec(query)).all()  # type: ignore[call-overload]
    return [WaitingTicket(*row) for row in rows]


__all__ = [
    "MESSAGE_ADDED",
    "STATUS_CHANGED",
    "TICKET_CREATED",
    "WAITING_STATUSES",
    "TicketCreated",
    "TicketMessageAdded",
    "TicketStatus",
    "TicketStatusChanged",
    "WaitingTicket",
    "ticket_owner",
    "waiting_tickets",
]
