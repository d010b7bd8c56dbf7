"""Cabinet, tag "Cabinet Tickets" (``/cabinet/tickets``, the user's JWT): the user's own tickets.

Every route answers 403 'Support tickets are disabled' in support's ``contact`` mode."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router
from subsvc.auth.principal import Principal
from subsvc_tickets import queries, service, views
from subsvc_tickets.gates import TICKETS_DISABLED, check_attachable, require_tickets_enabled
from subsvc_tickets.routes.common import PageNumber, PerPage, StatusFilter
from subsvc_tickets.schemas import (
    TicketCreateRequest,
    TicketDetailResponse,
    TicketListResponse,
    TicketMessageCreateRequest,
    TicketMessageResponse,
)

router = Router(area="cabinet", tag="Cabinet Tickets", prefix="/cabinet/tickets")

DISABLED = {403: TICKETS_DISABLED}
BLOCKED = f"{TICKETS_DISABLED}, or {service.BLOCKED} (permanently or until a moment)"
ATTACHMENT = "A media file the user did not upload"


@router.get("", responses=DISABLED)
async def get_tickets(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    page: PageNumber = 1,
    per_page: PerPage = 20,
    status: StatusFilter = None,
) -> TicketListResponse:
    """The user's tickets, last changed first."""
    await require_tickets_enabled(request.app)
    filters = queries.Filters(user_id=principal.id, status=status)
    tickets, figures = await views.page_of(session, filters, page, per_page)
    return TicketListResponse(items=await views.cabinet_items(request.app, session, tickets), **figures)


@router.post("", responses={400: ATTACHMENT, 403: BLOCKED, 409: service.ALREADY_OPEN})
async def create_ticket(
    request: Request, session: AsyncSession, principal: Principal, payload: TicketCreateRequest
) -> TicketDetailResponse:
    """Open a ticket with its first message (one active ticket per user); event ``ticket.created``."""
    await require_tickets_enabled(request.app)
    content = payload.content()
    await check_attachable(session, content, user_id=principal.id)
    ticket, _ = await service.create_ticket(request.app, session, principal.id, payload.title, content)
    return await views.cabinet_detail(request.app, session, ticket)


@router.get("/{ticket_id}", responses={**DISABLED, 404: service.TICKET_NOT_FOUND})
async def get_ticket(
    request: Request, session: AsyncSession, principal: Principal, ticket_id: int
) -> TicketDetailResponse:
    """One of the user's tickets with its messages; ``is_reply_blocked`` says whether the user may write."""
    await require_tickets_enabled(request.app)
    ticket = await service.get_ticket(session, ticket_id, owner=principal.id)
    return await views.cabinet_detail(request.app, session, ticket)


@router.post(
    "/{ticket_id}/messages",
    responses={
        400: f"{service.CLOSED}, or {ATTACHMENT.lower()}",
        403: BLOCKED,
        404: service.TICKET_NOT_FOUND,
    },
)
async def add_ticket_message(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    ticket_id: int,
    payload: TicketMessageCreateRequest,
) -> TicketMessageResponse:
    """Write to one's ticket: ``answered`` becomes ``pending``; event ``ticket.message_added``."""
    await require_tickets_enabled(request.app)
    content = payload.content()
    await check_attachable(session, content, user_id=principal.id)
    message = await service.add_user_message(request.app, session, principal.id, ticket_id, content)
    return views.cabinet_message(request.app, message)
