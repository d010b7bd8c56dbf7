"""Web API, tag ``support`` (``/tickets``, API token): list, detail, status, priority, reply
blocks, replies (recording the token) and a message's media."""

from __future__ import annotations

from typing import Annotated, Literal

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Limit, Offset, Query, Router
from subsvc.auth.principal import Principal
from subsvc.db import utcnow
from subsvc.messenger import MessengerError
from subsvc.services import services
from subsvc_tickets import queries, service, views
from subsvc_tickets.gates import check_attachable, web_media_url
from subsvc_tickets.models import TicketMessage
from subsvc_tickets.schemas import (
    TicketMediaResponse,
    TicketPriorityUpdateRequest,
    TicketReplyBlockRequest,
    TicketReplyRequest,
    TicketReplyResponse,
    TicketStatusUpdateRequest,
    WebTicketResponse,
)
from subsvc_tickets.service import Author, Content, TicketError

router = Router(area="web", tag="support")

NOT_FOUND = {404: service.TICKET_NOT_FOUND}
MEDIA_NOT_FOUND = "Ticket not found, Message not found, or Media not found for this message"
StatusFilter = Literal["open", "answered", "closed", "pending"]


@router.get("/tickets", response_model=list[WebTicketResponse])
async def list_tickets(
    session: AsyncSession,
    limit: Limit = 50,
    offset: Offset = 0,
    status: Annotated[StatusFilter | None, Query()] = None,
    priority: str | None = None,
    user_id: int | None = None,
) -> list[WebTicketResponse]:
    """Tickets, last changed first (messages left out); every filter given applies."""
    filters = queries.Filters(user_id=user_id, status=status, priority=priority)
    return [
        views.web_ticket(ticket) for ticket in await queries.tickets_page(session, filters, limit, offset)
    ]


@router.get("/tickets/{ticket_id}", responses=NOT_FOUND)
async def get_ticket(session: AsyncSession, ticket_id: int) -> WebTicketResponse:
    """A ticket with its messages, oldest first."""
    return await views.web_detail(session, await service.get_ticket(session, ticket_id))


@router.post(
    "/tickets/{ticket_id}/status",
    responses={400: "Invalid ticket status", 409: service.USER_ALREADY_OPEN, **NOT_FOUND},
)
async def update_ticket_status(
    request: Request, session: AsyncSession, ticket_id: int, payload: TicketStatusUpdateRequest
) -> WebTicketResponse:
    """Set the status (``closed`` sets ``closed_at``, leaving it clears it); event
    ``ticket.status_changed``."""
    if payload.status not in service.STATUSES:
        raise TicketError(400, "Invalid ticket status")
    ticket = await service.change_status(request.app, session, ticket_id, payload.status)
    return await views.web_detail(session, ticket)


@router.post("/tickets/{ticket_id}/priority", responses={400: "Invalid priority", **NOT_FOUND})
async def update_ticket_priority(
    session: AsyncSession, ticket_id: int, payload: TicketPriorityUpdateRequest
) -> WebTicketResponse:
    if payload.priority not in service.PRIORITIES:
        raise TicketError(400, "Invalid priority")
    return await views.web_detail(session, await service.set_priority(session, ticket_id, payload.priority))


@router.post(
    "/tickets/{ticket_id}/reply-block", responses={400: "Block expiration must be in the future", **NOT_FOUND}
)
async def update_reply_block(
    session: AsyncSession, ticket_id: int, payload: TicketReplyBlockRequest
) -> WebTicketResponse:
    """Block the owner from writing to support: for good, or until a future moment."""
    if not payload.permanent and payload.until is not None and payload.until <= utcnow():
        raise TicketError(400, "Block expiration must be in the future")
    ticket = await service.set_reply_block(
        session, ticket_id, permanent=payload.permanent, until=payload.until
    )
    return await views.web_detail(session, ticket)


@router.delete("/tickets/{ticket_id}/reply-block", responses=NOT_FOUND)
async def clear_reply_block(session: AsyncSession, ticket_id: int) -> WebTicketResponse:
    ticket = await service.set_reply_block(session, ticket_id, permanent=False, until=None)
    return await views.web_detail(session, ticket)


@router.post(
    "/tickets/{ticket_id}/reply",
    status_code=201,
    responses={
        400: "Message text or media is required, or a media file this token did not upload",
        409: service.USER_ALREADY_OPEN,
        **NOT_FOUND,
    },
)
async def reply_to_ticket(
    request: Request, session: AsyncSession, principal: Principal, ticket_id: int, payload: TicketReplyRequest
) -> TicketReplyResponse:
    """Answer as support: the message records the API token; the ticket becomes ``answered``
    (reopened when closed); event ``ticket.message_added`` once."""
    text = (payload.message_text or "").strip()
    file_id = payload.media_file_id or None
    if not text and not file_id:
        raise TicketError(400, "Message text or media is required")
    content = Content(
        text=text or payload.media_caption or "[media]",
        media_type=(payload.media_type or "document") if file_id else None,
        media_file_id=file_id,
        media_caption=payload.media_caption if file_id else None,
    )
    await check_attachable(session, content, token_id=principal.id)
    author = Author(token_id=principal.id, name=principal.name or None)
    ticket, message = await service.admin_reply(request.app, session, ticket_id, content, author)
    return TicketReplyResponse(
        ticket=await views.web_detail(session, ticket), message=views.web_message(message, ticket.user_id)
    )


@router.get("/tickets/{ticket_id}/messages/{message_id}/media", responses={404: MEDIA_NOT_FOUND})
async def get_ticket_message_media(
    request: Request, session: AsyncSession, ticket_id: int, message_id: int
) -> TicketMediaResponse:
    """A message's (first) media and the URL it downloads from (``GET /media/{file_id}``;
    ``null`` when the messenger's ``getFile`` does not find the file)."""
    await service.get_ticket(session, ticket_id)
    message = await session.get(TicketMessage, message_id)
    if message is None or message.ticket_id != ticket_id:
        raise TicketError(404, "Message not found")
    if not message.media_file_id:
        raise TicketError(404, "Media not found for this message")
    return TicketMediaResponse(
        id=message_id,
        ticket_id=ticket_id,
        media_type=message.media_type or "document",
        media_file_id=message.media_file_id,
        media_caption=message.media_caption,
        media_url=await _media_url(request, message.media_file_id),
    )


async def _media_url(request: Request, file_id: str) -> str | None:
    """The URL of ``GET /media/{file_id}`` when the messenger still has the file, else ``None``."""
    try:
        found = await services(request.app).messenger.get_file(file_id)
    except MessengerError:
        return None
    return web_media_url(request, file_id) if found.get("file_path") else None
