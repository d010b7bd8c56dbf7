"""The one status machine of tickets and every write to them (no HTTP).

- created -> ``open``;
- a user's message: ``answered`` -> ``pending``, ``open``/``pending`` unchanged, ``closed`` refused;
- an admin reply -> ``answered``; on a ``closed`` ticket it reopens it (``closed_at`` cleared,
  ``ticket.status_changed`` closed -> answered);
- an admin status change: any -> any; ``closed`` sets ``closed_at``, leaving it clears it; the
  same status changes nothing.

Leaving ``closed`` can give the owner a second active ticket, which the partial unique index
refuses: 409. Every change takes the ticket's row lock first (PostgreSQL), so two changes of
one ticket are applied one after the other, each from the true old status; each event is
published once, in the transaction of the change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.api.refusal import Refusal
from subsvc.db import utcnow
from subsvc.services import services
from subsvc_tickets.events import (
    MESSAGE_ADDED,
    STATUS_CHANGED,
    TICKET_CREATED,
    TicketCreated,
    TicketMessageAdded,
    TicketStatusChanged,
)
from subsvc_tickets.models import Ticket, TicketMessage

STATUSES = ("open", "answered", "pending", "closed")
PRIORITIES = ("low", "normal", "high", "urgent")
WAITING_STATUSES = ("open", "pending")

TICKET_NOT_FOUND = "Ticket not found"
ALREADY_OPEN = "You already have an open ticket"
USER_ALREADY_OPEN = "The user already has another open ticket"
CLOSED = "Cannot add message to closed ticket"
BLOCKED = "You are blocked from contacting support"


class TicketError(Refusal):
    """A refused change: answered ``status`` with ``{"detail": detail}``."""


@dataclass(frozen=True)
class Author:
    """Who writes: a cabinet user (``user_id``) or an API token (``token_id``, ``name``)."""

    user_id: int | None = None
    token_id: int | None = None
    name: str | None = None


@dataclass(frozen=True)
class Content:
    """A message's text and attachments (``media_items``: ``{type, file_id, caption}`` dicts;
    the first one is mirrored into the single-media fields)."""

    text: str = ""
    media_type: str | None = None
    media_file_id: str | None = None
    media_caption: str | None = None
    media_items: list[dict[str, Any]] | None = None

    def file_ids(self) -> list[str]:
        ids = [item["file_id"] for item in self.media_items or ()]
        if self.media_file_id and self.media_file_id not in ids:
            ids.append(self.media_file_id)
        return ids

    def message(self, ticket_id: int, author: Author, *, is_from_admin: bool) -> TicketMessage:
        items = self.media_items or None
        media_type, file_id, caption = self.media_type, self.media_file_id, self.media_caption
        if items:
            first = items[0]
            media_type, file_id, caption = first["type"], first["file_id"], first.get("caption") or caption
        return TicketMessage(
            ticket_id=ticket_id,
            author_user_id=author.user_id,
            author_token_id=author.token_id,
            author_name=author.name,
            message_text=self.text,
            is_from_admin=is_from_admin,
            has_media=bool(media_type and file_id) or bool(items),
            media_type=media_type if file_id else None,
            media_file_id=file_id,
            media_caption=caption if file_id else None,
            media_items=items,
            created_at=utcnow(),
        )


# --- reading ---------------------------------------------------------------------------------


async def get_ticket(
    session: AsyncSession, ticket_id: int, *, owner: int | None = None, lock: bool = False
) -> Ticket:
    """The ticket (of ``owner`` when given), or :class:`TicketError` 404; ``lock``: its row lock."""
    query = select(Ticket).where(col(Ticket.id) == ticket_id)
    if owner is not None:
        query = query.where(col(Ticket.user_id) == owner)
    if lock:
        query = query.with_for_update()
    ticket = (await session.exec(query)).scalar_one_or_none()  # type: ignore[call-overload]
    if ticket is None:
        raise TicketError(404, TICKET_NOT_FOUND)
    return ticket  # type: ignore[no-any-return]


async def messages_of(session: AsyncSession, ticket_id: int) -> Sequence[TicketMessage]:
    """The ticket's messages, oldest first."""
    query = (
        select(TicketMessage).where(col(TicketMessage.ticket_id) == ticket_id).order_by(col(TicketMessage.id))
    )
    return (await session.exec(query)).scalars().all()  # type: ignore[call-overload,no-any-return]


async def block_end(session: AsyncSession, user_id: int, now: datetime) -> tuple[bool, datetime | None]:
    """Whether a ticket of the user blocks them for good, and the latest block end still to come."""
    blocking = or_(col(Ticket.user_reply_block_permanent), col(Ticket.user_reply_block_until) > now)
    query = select(col(Ticket.user_reply_block_permanent), col(Ticket.user_reply_block_until)).where(
        col(Ticket.user_id) == user_id, blocking
    )
    rows = (await session.exec(query)).all()  # type: ignore[call-overload]
    permanent = any(row[0] for row in rows)
    ends = [row[1] for row in rows if row[1] is not None and row[1] > now]
    return permanent, max(ends, default=None)


async def is_user_blocked(session: AsyncSession, user_id: int) -> bool:
    """Whether the user may not write to support now (a block on any of their tickets)."""
    permanent, until = await block_end(session, user_id, utcnow())
    return permanent or until is not None


async def check_not_blocked(session: AsyncSession, user_id: int) -> None:
    """:class:`TicketError` 403 with the reference's texts when the user is blocked."""
    permanent, until = await block_end(session, user_id, utcnow())
    if permanent:
        raise TicketError(403, BLOCKED)
    if until is not None:
        raise TicketError(403, f"{BLOCKED} until {until.strftime('%d.%m.%Y %H:%M')} UTC")


# --- the status machine ------------------------------------------------------------------------


async def create_ticket(
    app: Starlette, session: AsyncSession, user_id: int, title: str, content: Content
) -> tuple[Ticket, TicketMessage]:
    """A new ``open`` ticket with its first message; 403 when blocked, 409 when the user has an
    active ticket (the partial unique index decides, also between concurrent requests)."""
    await check_not_blocked(session, user_id)
    now = utcnow()
    ticket = Ticket(user_id=user_id, title=title, created_at=now, updated_at=now)
    try:
        async with session.begin_nested():
            session.add(ticket)
            await session.flush()
    except IntegrityError:
        raise TicketError(409, ALREADY_OPEN) from None
    assert ticket.id is not None
    message = content.message(ticket.id, Author(user_id=user_id), is_from_admin=False)
    session.add(message)
    await session.flush()
    assert message.id is not None
    payload = TicketCreated(
        ticket_id=ticket.id,
        user_id=user_id,
        title=title,
        priority=ticket.priority,
        message_id=message.id,
        message_text=message.message_text,
        media_type=message.media_type,
        media_file_id=message.media_file_id,
    )
    services(app).events.publish(session, TICKET_CREATED, payload)
    return ticket, message


async def add_user_message(
    app: Starlette, session: AsyncSession, user_id: int, ticket_id: int, content: Content
) -> TicketMessage:
    """The owner writes: 403 when blocked, 404 for another's ticket, 400 when closed;
    ``answered`` becomes ``pending``."""
    await check_not_blocked(session, user_id)
    ticket = await get_ticket(session, ticket_id, owner=user_id, lock=True)
    if ticket.status == "closed":
        raise TicketError(400, CLOSED)
    if ticket.status == "answered":
        ticket.status = "pending"
    return await _add_message(app, session, ticket, content, Author(user_id=user_id), is_from_admin=False)


async def admin_reply(
    app: Starlette, session: AsyncSession, ticket_id: int, content: Content, author: Author
) -> tuple[Ticket, TicketMessage]:
    """Support answers: the ticket becomes ``answered``, reopened when it was closed."""
    ticket = await get_ticket(session, ticket_id, lock=True)
    old = ticket.status
    await _move(session, ticket, "answered")
    message = await _add_message(app, session, ticket, content, author, is_from_admin=True)
    if old == "closed":
        _status_event(app, session, ticket, old)
    return ticket, message


async def change_status(app: Starlette, session: AsyncSession, ticket_id: int, status: str) -> Ticket:
    """Support sets the status (any to any); the same status is no change and no event."""
    ticket = await get_ticket(session, ticket_id, lock=True)
    old = ticket.status
    if old != status:
        await _move(session, ticket, status)
        ticket.updated_at = utcnow()
        _status_event(app, session, ticket, old)
    return ticket


async def set_priority(session: AsyncSession, ticket_id: int, priority: str) -> Ticket:
    ticket = await get_ticket(session, ticket_id, lock=True)
    ticket.priority = priority
    await session.flush()
    return ticket


async def set_reply_block(
    session: AsyncSession, ticket_id: int, *, permanent: bool, until: datetime | None
) -> Ticket:
    """Block the owner's replies for good or until ``until`` (both as given; neither clears)."""
    ticket = await get_ticket(session, ticket_id, lock=True)
    ticket.user_reply_block_permanent = permanent
    ticket.user_reply_block_until = until
    await session.flush()
    return ticket


async def _move(session: AsyncSession, ticket: Ticket, status: str) -> None:
    """Set the status and ``closed_at``; 409 when leaving ``closed`` meets another active ticket."""
    leaving_closed = ticket.status == "closed" and status != "closed"
    ticket.status = status
    if status == "closed":
        ticket.closed_at = utcnow()
    elif leaving_closed:
        ticket.closed_at = None
    if not leaving_closed:
        return
    try:
        async with session.begin_nested():
            await session.flush()
    except IntegrityError:
        raise TicketError(409, USER_ALREADY_OPEN) from None


async def _add_message(
    app: Starlette,
    session: AsyncSession,
    ticket: Ticket,
    content: Content,
    author: Author,
    *,
    is_from_admin: bool,
) -> TicketMessage:
    assert ticket.id is not None
    message = content.message(ticket.id, author, is_from_admin=is_from_admin)
    ticket.updated_at = message.created_at
    session.add(message)
    await session.flush()
    assert message.id is not None
    payload = TicketMessageAdded(
        ticket_id=ticket.id,
        user_id=ticket.user_id,
        title=ticket.title,
        message_id=message.id,
        is_from_admin=is_from_admin,
        author_user_id=author.user_id,
        author_name=author.name,
        message_text=message.message_text,
        media_type=message.media_type,
        media_file_id=message.media_file_id,
        media_caption=message.media_caption,
    )
    services(app).events.publish(session, MESSAGE_ADDED, payload)
    return message


def _status_event(app: Starlette, session: AsyncSession, ticket: Ticket, old: str) -> None:
    assert ticket.id is not None
    payload = TicketStatusChanged(
        ticket_id=ticket.id,
        user_id=ticket.user_id,
        title=ticket.title,
        old_status=old,
        new_status=ticket.status,
    )
    services(app).events.publish(session, STATUS_CHANGED, payload)


def waiting_filter() -> Any:
    """Tickets waiting for support: ``open`` or ``pending``."""
    return or_(*(col(Ticket.status) == status for status in WAITING_STATUSES))
