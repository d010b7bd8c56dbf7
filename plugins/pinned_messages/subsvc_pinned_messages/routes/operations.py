"""The operations both API areas serve alike (the Web API and the cabinet admin's twin
routes): declared once on each area's router by :func:`declare`. Creating a message differs
(the cabinet takes ``broadcast`` in the body): each area has its handler, declared alike by
:func:`create_endpoint`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Limit, Offset, Page, Query, Router
from subsvc.api.endpoint import Handler
from subsvc.auth.principal import Principal
from subsvc_pinned_messages.routes import common
from subsvc_pinned_messages.routes.common import (
    CONTENT_RESPONSES,
    CREATE,
    DELETE,
    EDIT,
    NOT_FOUND_RESPONSES,
    READ,
    SEND_RESPONSES,
)
from subsvc_pinned_messages.schemas import (
    PinnedMessageBroadcastResponse,
    PinnedMessageListResponse,
    PinnedMessageResponse,
    PinnedMessageRunResponse,
    PinnedMessageSettingsRequest,
    PinnedMessageUnpinResponse,
    PinnedMessageUpdateRequest,
)

BROADCAST_HELP = "Разослать сообщение всем пользователям (по умолчанию False — только при /start)"
PageLimit = Annotated[int, Query(ge=1, le=100)]
Broadcast = Annotated[bool, Query(description=BROADCAST_HELP)]


def creator(principal: Principal) -> int | None:
    """The user behind a call (a cabinet admin), or ``None`` for an API token."""
    return principal.id if principal.kind == "user" else None


def create_endpoint(router: Router) -> Callable[[Handler], Handler]:
    """Declare the area's create endpoint (``POST`` on the area's prefix): the handler is the
    area's own, as each takes ``broadcast`` its own way."""
    return router.post(
        "", status_code=201, permission=CREATE, responses={**CONTENT_RESPONSES, **SEND_RESPONSES}
    )


def declare(router: Router) -> None:
    """Declare the shared operations on ``router``."""

    @router.get("", permission=READ)
    async def list_pinned_messages(
        session: AsyncSession, limit: PageLimit = 20, offset: Offset = 0, active_only: bool = False
    ) -> PinnedMessageListResponse:
        """Messages, newest first (`active_only`: just the active one)."""
        return await common.list_messages(session, limit, offset, active_only)

    @router.get("/active", permission=READ)
    async def get_active_message(session: AsyncSession) -> PinnedMessageResponse | None:
        """The active message, or `null`."""
        return await common.get_active(session)

    @router.post("/active/deactivate", permission=EDIT)
    async def deactivate_active_message(session: AsyncSession) -> PinnedMessageResponse | None:
        """Deactivate the active message (nothing is unpinned in chats); it, or `null`."""
        return await common.deactivate(session)

    @router.post("/active/unpin", permission=EDIT, responses=SEND_RESPONSES)
    async def unpin_active_message(
        request: Request, session: AsyncSession, principal: Principal
    ) -> PinnedMessageUnpinResponse:
        """Deactivate the active message and unpin it in every reachable user's chat (a background
        job; `broadcast_id` names the run). `was_active` false: there was none, nothing is done."""
        return await common.unpin(request, session, creator(principal))

    @router.get("/broadcasts", summary="List Pinned Message Broadcasts", permission=READ)
    async def list_broadcasts(
        session: AsyncSession, limit: Limit = 50, offset: Offset = 0
    ) -> Page[PinnedMessageRunResponse]:
        """Not in the reference: the broadcasts and unpins, newest first."""
        return await common.list_runs(session, limit, offset)

    @router.get(
        "/broadcasts/{broadcast_id}",
        summary="Get Pinned Message Broadcast",
        permission=READ,
        responses={404: common.RUN_NOT_FOUND},
    )
    async def get_broadcast(session: AsyncSession, broadcast_id: int) -> PinnedMessageRunResponse:
        """Not in the reference: how far a broadcast or unpin got."""
        return await common.get_run(session, broadcast_id)

    @router.get("/{message_id}", permission=READ, responses=NOT_FOUND_RESPONSES)
    async def get_pinned_message(session: AsyncSession, message_id: int) -> PinnedMessageResponse:
        return await common.get_message(session, message_id)

    @router.patch("/{message_id}", permission=EDIT, responses={**NOT_FOUND_RESPONSES, **CONTENT_RESPONSES})
    async def update_pinned_message(
        session: AsyncSession, message_id: int, payload: PinnedMessageUpdateRequest
    ) -> PinnedMessageResponse:
        """Change the given fields (content checked as on creation); nothing is sent."""
        return await common.update_message(session, message_id, payload)

    @router.delete("/{message_id}", status_code=204, permission=DELETE, responses=NOT_FOUND_RESPONSES)
    async def delete_pinned_message(request: Request, session: AsyncSession, message_id: int) -> None:
        """Delete the message, even the active one (nothing is unpinned in chats); its unfinished
        broadcasts are cancelled."""
        await common.delete_message(request, session, message_id)

    @router.patch("/{message_id}/settings", permission=EDIT, responses=NOT_FOUND_RESPONSES)
    async def update_pinned_message_settings(
        session: AsyncSession, message_id: int, payload: PinnedMessageSettingsRequest
    ) -> PinnedMessageResponse:
        """Change `send_before_menu` and `send_on_every_start` only."""
        return await common.update_settings(session, message_id, payload)

    @router.post(
        "/{message_id}/activate", permission=EDIT, responses={**NOT_FOUND_RESPONSES, **SEND_RESPONSES}
    )
    async def activate_pinned_message(
        request: Request,
        session: AsyncSession,
        principal: Principal,
        message_id: int,
        broadcast: Broadcast = False,
    ) -> PinnedMessageBroadcastResponse:
        """Make this message the active one; with `broadcast`, also send and pin it (background)."""
        return await common.activate(request, session, message_id, broadcast, creator(principal))

    @router.post(
        "/{message_id}/broadcast", permission=EDIT, responses={**NOT_FOUND_RESPONSES, **SEND_RESPONSES}
    )
    async def broadcast_message(
        request: Request, session: AsyncSession, principal: Principal, message_id: int
    ) -> PinnedMessageBroadcastResponse:
        """Send and pin this message in every reachable user's chat, active or not (background)."""
        return await common.broadcast(request, session, message_id, creator(principal))
