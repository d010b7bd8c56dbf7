"""Cabinet admin, tag "Cabinet Admin Tickets" (``/cabinet/admin/tickets``): statistics, the
list, a ticket, replies (recording the administrator), status and priority. Permissions
``tickets:read``, ``tickets:reply``, ``tickets:close`` (status and priority)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router
from subsvc.auth.principal import Principal
from subsvc_tickets import queries, service, views
from subsvc_tickets.gates import check_attachable
from subsvc_tickets.routes.common import PageNumber, PerPage, PriorityFilter, StatusFilter, UserFilter
from subsvc_tickets.schemas import (
    AdminPriorityUpdateRequest,
    AdminReplyRequest,
    AdminStatsResponse,
    AdminStatusUpdateRequest,
    AdminTicketDetailResponse,
    AdminTicketListResponse,
    TicketMessageResponse,
)
from subsvc_tickets.service import Author, TicketError

router = Router(area="cabinet-admin", tag="Cabinet Admin Tickets", prefix="/cabinet/admin/tickets")

READ, REPLY, CLOSE = "tickets:read", "tickets:reply", "tickets:close"
NOT_FOUND = {404: service.TICKET_NOT_FOUND}
INVALID_STATUS = f"Invalid status. Allowed: {', '.join(service.STATUSES)}"
INVALID_PRIORITY = f"Invalid priority. Allowed: {', '.join(service.PRIORITIES)}"


@router.get("/stats", permission=READ)
async def get_ticket_stats(session: AsyncSession) -> AdminStatsResponse:
    """How many tickets there are, in all and by status."""
    counts = await queries.status_counts(session)
    return AdminStatsResponse(total=sum(counts.values()), **counts)


@router.get("", permission=READ)
async def get_all_tickets(
    request: Request,
    session: AsyncSession,
    page: PageNumber = 1,
    per_page: PerPage = 20,
    status: StatusFilter = None,
    priority: PriorityFilter = None,
    user_id: UserFilter = None,
) -> AdminTicketListResponse:
    """Every user's tickets, last changed first, with the user and the last message."""
    filters = queries.Filters(user_id=user_id, status=status, priority=priority)
    tickets, figures = await views.page_of(session, filters, page, per_page)
    return AdminTicketListResponse(items=await views.admin_items(request.app, session, tickets), **figures)


@router.get("/{ticket_id}", permission=READ, responses=NOT_FOUND)
async def get_ticket_detail(
    request: Request, session: AsyncSession, ticket_id: int
) -> AdminTicketDetailResponse:
    return await views.admin_detail(request.app, session, await service.get_ticket(session, ticket_id))


@router.post(
    "/{ticket_id}/reply",
    permission=REPLY,
    responses={
        400: "A media file this administrator did not upload",
        409: service.USER_ALREADY_OPEN,
        **NOT_FOUND,
    },
)
async def reply_to_ticket(
    request: Request, session: AsyncSession, principal: Principal, ticket_id: int, payload: AdminReplyRequest
) -> TicketMessageResponse:
    """Answer as support (the message records the administrator): the ticket becomes
    ``answered``, reopened when closed; event ``ticket.message_added`` once."""
    content = payload.content()
    await check_attachable(session, content, user_id=principal.id)
    author = Author(user_id=principal.id, name=principal.name or None)
    _, message = await service.admin_reply(request.app, session, ticket_id, content, author)
    return views.cabinet_message(request.app, message)


@router.post(
    "/{ticket_id}/status",
    permission=CLOSE,
    responses={400: INVALID_STATUS, 409: service.USER_ALREADY_OPEN, **NOT_FOUND},
)
async def update_ticket_status(
    request: Request, session: AsyncSession, ticket_id: int, payload: AdminStatusUpdateRequest
) -> AdminTicketDetailResponse:
    """Set the status; event ``ticket.status_changed`` with the old and the new one."""
    if payload.status not in service.STATUSES:
        raise TicketError(400, INVALID_STATUS)
    ticket = await service.change_status(request.app, session, ticket_id, payload.status)
    return await views.admin_detail(request.app, session, ticket)


@router.post("/{ticket_id}/priority", permission=CLOSE, responses={400: INVALID_PRIORITY, **NOT_FOUND})
async def update_ticket_priority(
    request: Request, session: AsyncSession, ticket_id: int, payload: AdminPriorityUpdateRequest
) -> AdminTicketDetailResponse:
    if payload.priority not in service.PRIORITIES:
        raise TicketError(400, INVALID_PRIORITY)
    ticket = await service.set_priority(session, ticket_id, payload.priority)
    return await views.admin_detail(request.app, session, ticket)
