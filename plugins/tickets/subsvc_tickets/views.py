"""Building the answers: a ticket's messages and lists, each page read with a fixed number of
queries (:mod:`subsvc_tickets.queries`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc_tickets import queries, service
from subsvc_tickets.gates import token_for
from subsvc_tickets.models import Ticket, TicketMessage
from subsvc_tickets.schemas import (
    AdminTicketDetailResponse,
    AdminTicketResponse,
    AdminTicketUserInfo,
    TicketDetailResponse,
    TicketMediaItem,
    TicketMediaItemResponse,
    TicketMessageResponse,
    TicketResponse,
    WebTicketMessageResponse,
    WebTicketResponse,
)


def cabinet_message(app: Starlette, message: TicketMessage) -> TicketMessageResponse:
    """A message for the cabinet, with fresh download tokens for its media."""
    assert message.id is not None
    items = None
    if message.media_items:
        items = [
            TicketMediaItem(**item, token=token_for(app, item["file_id"])) for item in message.media_items
        ]
    return TicketMessageResponse(
        id=message.id,
        message_text=message.message_text or "",
        is_from_admin=message.is_from_admin,
        has_media=message.has_media,
        media_type=message.media_type,
        media_file_id=message.media_file_id,
        media_token=token_for(app, message.media_file_id),
        media_caption=message.media_caption,
        media_items=items,
        created_at=message.created_at,
    )


def web_message(message: TicketMessage, owner_id: int) -> WebTicketMessageResponse:
    assert message.id is not None
    items = [TicketMediaItemResponse(**item) for item in message.media_items] if message.media_items else None
    return WebTicketMessageResponse(
        id=message.id,
        user_id=message.author_user_id if message.author_user_id is not None else owner_id,
        message_text=message.message_text or "",
        is_from_admin=message.is_from_admin,
        has_media=message.has_media,
        media_type=message.media_type,
        media_file_id=message.media_file_id,
        media_caption=message.media_caption,
        media_items=items,
        created_at=message.created_at,
        author_user_id=message.author_user_id,
        author_token_id=message.author_token_id,
        author_name=message.author_name,
    )


def web_ticket(ticket: Ticket, messages: Sequence[TicketMessage] = ()) -> WebTicketResponse:
    answer = WebTicketResponse.model_validate(ticket)
    answer.messages = [web_message(message, ticket.user_id) for message in messages]
    return answer


async def web_detail(session: AsyncSession, ticket: Ticket) -> WebTicketResponse:
    assert ticket.id is not None
    return web_ticket(ticket, await service.messages_of(session, ticket.id))


async def cabinet_detail(app: Starlette, session: AsyncSession, ticket: Ticket) -> TicketDetailResponse:
    assert ticket.id is not None
    messages = await service.messages_of(session, ticket.id)
    return TicketDetailResponse(
        **_fields(ticket),
        is_reply_blocked=await service.is_user_blocked(session, ticket.user_id),
        messages=[cabinet_message(app, message) for message in messages],
    )


async def admin_detail(app: Starlette, session: AsyncSession, ticket: Ticket) -> AdminTicketDetailResponse:
    detail = await cabinet_detail(app, session, ticket)
    users = await queries.users_info(session, [ticket.user_id])
    user = users.get(ticket.user_id)
    return AdminTicketDetailResponse(
        **detail.model_dump(exclude={"messages"}),
        messages=detail.messages,
        user=AdminTicketUserInfo(**user) if user else None,
    )


async def cabinet_items(
    app: Starlette, session: AsyncSession, tickets: Sequence[Ticket]
) -> list[TicketResponse]:
    """List items with message counts and last messages (two queries for the page)."""
    ids = [ticket.id for ticket in tickets if ticket.id is not None]
    counts = await queries.message_counts(session, ids)
    last = await queries.last_messages(session, ids)
    items = []
    for ticket in tickets:
        assert ticket.id is not None
        latest = last.get(ticket.id)
        items.append(
            TicketResponse(
                **_fields(ticket),
                messages_count=counts.get(ticket.id, 0),
                last_message=cabinet_message(app, latest) if latest else None,
            )
        )
    return items


async def admin_items(
    app: Starlette, session: AsyncSession, tickets: Sequence[Ticket]
) -> list[AdminTicketResponse]:
    """:func:`cabinet_items` with each ticket's user (one more query)."""
    items = await cabinet_items(app, session, tickets)
    users = await queries.users_info(session, [ticket.user_id for ticket in tickets])
    answers = []
    for item, ticket in zip(items, tickets, strict=True):
        user = users.get(ticket.user_id)
        answers.append(
            AdminTicketResponse(
                **item.model_dump(exclude={"last_message"}),
                last_message=item.last_message,
                user=AdminTicketUserInfo(**user) if user else None,
            )
        )
    return answers


def pages(total: int, per_page: int) -> int:
    return max(1, math.ceil(total / per_page))


async def page_of(
    session: AsyncSession, filters: queries.Filters, page: int, per_page: int
) -> tuple[Sequence[Ticket], dict[str, int]]:
    """Page ``page`` (from 1) of the tickets ``filters`` selects, and the list's figures
    (``total``, ``page``, ``per_page``, ``pages``)."""
    total = await queries.count_tickets(session, filters)
    tickets = await queries.tickets_page(session, filters, per_page, (page - 1) * per_page)
    return tickets, {"total": total, "page": page, "per_page": per_page, "pages": pages(total, per_page)}


def _fields(ticket: Ticket) -> dict[str, object]:
    assert ticket.id is not None
    return {
        "id": ticket.id,
        "title": ticket.title or f"Ticket #{ticket.id}",
        "status": ticket.status,
        "priority": ticket.priority,
        "created_at": ticket.created_at,
        "updated_at": ticket.updated_at,
        "closed_at": ticket.closed_at,
    }
