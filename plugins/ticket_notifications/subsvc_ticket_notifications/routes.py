"""The ten notification operations: "Cabinet Ticket Notifications" (the ticket owner's, under
`/cabinet/tickets/notifications`) and "Cabinet Admin Ticket Notifications" (each
administrator's, under `/cabinet/admin/tickets/notifications`, permission `tickets:read`)."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import Query, Router
from subsvc.auth.principal import Principal
from subsvc_ticket_notifications import service
from subsvc_ticket_notifications.schemas import (
    MarkedResponse,
    SuccessResponse,
    TicketNotificationListResponse,
    TicketNotificationResponse,
    UnreadCountResponse,
)

USER_TAG = "Cabinet Ticket Notifications"
ADMIN_TAG = "Cabinet Admin Ticket Notifications"
READ = "tickets:read"

user_router = Router(area="cabinet", tag=USER_TAG, prefix="/cabinet/tickets/notifications")
admin_router = Router(
    area="cabinet-admin", tag=ADMIN_TAG, prefix="/cabinet/admin/tickets/notifications", permission=READ
)

UnreadOnly = Annotated[bool, Query(description="Only return unread notifications")]
Limit = Annotated[int, Query(ge=1, le=100)]
Offset = Annotated[int, Query(ge=0)]
NOT_FOUND = {404: service.NOT_FOUND}


def _views(items: list[service.NotificationView]) -> list[TicketNotificationResponse]:
    return [TicketNotificationResponse.model_validate(item) for item in items]


# --- the ticket owner ----------------------------------------------------------------------------


@user_router.get("")
async def get_user_notifications(
    session: AsyncSession,
    principal: Principal,
    unread_only: UnreadOnly = False,
    limit: Limit = 50,
    offset: Offset = 0,
) -> TicketNotificationListResponse:
    """The caller's ticket notifications, newest first, and how many are unread."""
    items = await service.user_notifications(
        session, principal.id, unread_only=unread_only, limit=limit, offset=offset
    )
    unread = await service.user_unread_count(session, principal.id)
    return TicketNotificationListResponse(items=_views(items), unread_count=unread)


@user_router.get("/unread-count")
async def get_user_unread_count(session: AsyncSession, principal: Principal) -> UnreadCountResponse:
    return UnreadCountResponse(unread_count=await service.user_unread_count(session, principal.id))


@user_router.post("/{notification_id}/read", responses={**NOT_FOUND, 403: service.NOT_YOURS})
async def mark_notification_as_read(
    session: AsyncSession, principal: Principal, notification_id: int
) -> SuccessResponse:
    """Mark one of the caller's notifications read (one already read keeps its ``read_at``)."""
    await service.mark_user_notification(session, principal.id, notification_id)
    return SuccessResponse()


@user_router.post("/read-all")
async def mark_all_notifications_as_read(session: AsyncSession, principal: Principal) -> MarkedResponse:
    count = await service.mark_all_user_notifications(session, principal.id)
    return MarkedResponse(marked_count=count)


@user_router.post("/ticket/{ticket_id}/read")
async def mark_ticket_notifications_as_read(
    session: AsyncSession, principal: Principal, ticket_id: int
) -> MarkedResponse:
    """Mark the caller's notifications of one ticket read."""
    count = await service.mark_user_ticket_notifications(session, principal.id, ticket_id)
    return MarkedResponse(marked_count=count)


# --- administrators -----------------------------------------------------------------------------


@admin_router.get("")
async def get_admin_notifications(
    session: AsyncSession,
    principal: Principal,
    unread_only: UnreadOnly = False,
    limit: Limit = 50,
    offset: Offset = 0,
) -> TicketNotificationListResponse:
    """The administrators' ticket notifications, newest first, read or not for the caller."""
    items = await service.admin_notifications(
        session, principal.id, unread_only=unread_only, limit=limit, offset=offset
    )
    unread = await service.admin_unread_count(session, principal.id)
    return TicketNotificationListResponse(items=_views(items), unread_count=unread)


@admin_router.get("/unread-count")
async def get_admin_unread_count(session: AsyncSession, principal: Principal) -> UnreadCountResponse:
    return UnreadCountResponse(unread_count=await service.admin_unread_count(session, principal.id))


@admin_router.post("/{notification_id}/read", responses={**NOT_FOUND, 403: service.NOT_ADMIN})
async def mark_admin_notification_as_read(
    session: AsyncSession, principal: Principal, notification_id: int
) -> SuccessResponse:
    """Mark one admin notification read for the caller only."""
    await service.mark_admin_notification(session, principal.id, notification_id)
    return SuccessResponse()


@admin_router.post("/read-all")
async def mark_all_admin_notifications_as_read(session: AsyncSession, principal: Principal) -> MarkedResponse:
    """Mark every admin notification read for the caller only."""
    count = await service.mark_all_admin_notifications(session, principal.id)
    return MarkedResponse(marked_count=count)


@admin_router.post("/ticket/{ticket_id}/read")
async def mark_admin_ticket_notifications_as_read(
    session: AsyncSession, principal: Principal, ticket_id: int
) -> MarkedResponse:
    """Mark the admin notifications of one ticket read for the caller only."""
    count = await service.mark_admin_ticket_notifications(session, principal.id, ticket_id)
    return MarkedResponse(marked_count=count)
