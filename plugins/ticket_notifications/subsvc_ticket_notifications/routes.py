"""The ten notification operations: "Cabinet Ticket Notifications" (the ticket owner's, under
`/cabinet/tickets/notifications`) and "Cabinet Admin Ticket Notifications" (each
administrator's, under `/cabinet/admin/tickets/notifications`, permission `tickets:read`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

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


@dataclass(frozen=True)
class Side:
    """Whose notifications an area serves: the ticket owner's or the administrators' (each
    administrator with a read state of their own). Each function takes the caller's id."""

    notifications: Callable[..., Awaitable[list[service.NotificationView]]]
    unread_count: Callable[[AsyncSession, int], Awaitable[int]]
    mark: Callable[[AsyncSession, int, int], Awaitable[None]]
    mark_all: Callable[[AsyncSession, int], Awaitable[int]]
    mark_ticket: Callable[[AsyncSession, int, int], Awaitable[int]]


@dataclass(frozen=True)
class Wording:
    """An area's operation names (their ids and summaries) and descriptions, in the order
    list, unread count, mark one, mark all, mark a ticket's."""

    names: tuple[str, str, str, str, str]
    descriptions: tuple[str | None, str | None, str | None, str | None, str | None]
    not_yours: str  # the 403 of marking a notification the caller may not mark


def serve(router: Router, side: Side, wording: Wording) -> None:
    """Serve the five notification operations of ``side`` on ``router``."""

    async def listing(
        session: AsyncSession,
        principal: Principal,
        unread_only: UnreadOnly = False,
        limit: Limit = 50,
        offset: Offset = 0,
    ) -> TicketNotificationListResponse:
        items = await side.notifications(
            session, principal.id, unread_only=unread_only, limit=limit, offset=offset
        )
        unread = await side.unread_count(session, principal.id)
        return TicketNotificationListResponse(
            items=[TicketNotificationResponse.model_validate(item) for item in items], unread_count=unread
        )

    async def unread_count(session: AsyncSession, principal: Principal) -> UnreadCountResponse:
        return UnreadCountResponse(unread_count=await side.unread_count(session, principal.id))

    async def mark(session: AsyncSession, principal: Principal, notification_id: int) -> SuccessResponse:
        await side.mark(session, principal.id, notification_id)
        return SuccessResponse()

    async def mark_all(session: AsyncSession, principal: Principal) -> MarkedResponse:
        return MarkedResponse(marked_count=await side.mark_all(session, principal.id))

    async def mark_ticket(session: AsyncSession, principal: Principal, ticket_id: int) -> MarkedResponse:
        return MarkedResponse(marked_count=await side.mark_ticket(session, principal.id, ticket_id))

    operations: list[tuple[str, str, dict[int, str], Callable[..., Awaitable[Any]]]] = [
        ("GET", "", {}, listing),
        ("GET", "/unread-count", {}, unread_count),
        ("POST", "/{notification_id}/read", {**NOT_FOUND, 403: wording.not_yours}, mark),
        ("POST", "/read-all", {}, mark_all),
        ("POST", "/ticket/{ticket_id}/read", {}, mark_ticket),
    ]
    for (method, path, responses, handler), name, description in zip(
        operations, wording.names, wording.descriptions, strict=True
    ):
        router.route(method, path, name=name, description=description, responses=responses)(handler)


serve(
    user_router,
    Side(
        service.user_notifications,
        service.user_unread_count,
        service.mark_user_notification,
        service.mark_all_user_notifications,
        service.mark_user_ticket_notifications,
    ),
    Wording(
        (
            "get_user_notifications",
            "get_user_unread_count",
            "mark_notification_as_read",
            "mark_all_notifications_as_read",
            "mark_ticket_notifications_as_read",
        ),
        (
            "The caller's ticket notifications, newest first, and how many are unread.",
            None,
            "Mark one of the caller's notifications read (one already read keeps its ``read_at``).",
            None,
            "Mark the caller's notifications of one ticket read.",
        ),
        service.NOT_YOURS,
    ),
)
serve(
    admin_router,
    Side(
        service.admin_notifications,
        service.admin_unread_count,
        service.mark_admin_notification,
        service.mark_all_admin_notifications,
        service.mark_admin_ticket_notifications,
    ),
    Wording(
        (
            "get_admin_notifications",
            "get_admin_unread_count",
            "mark_admin_notification_as_read",
            "mark_all_admin_notifications_as_read",
            "mark_admin_ticket_notifications_as_read",
        ),
        (
            "The administrators' ticket notifications, newest first, read or not for the caller.",
            None,
            "Mark one admin notification read for the caller only.",
            "Mark every admin notification read for the caller only.",
            "Mark the admin notifications of one ticket read for the caller only.",
        ),
        service.NOT_ADMIN,
    ),
)
