"""What both areas share: permissions, the create and history endpoints (their declarations
and their handlers' work) and the stop operation (mounted in both). The services' refusals
(:class:`BroadcastRefused`) are answered as the plugin declares them (``plugin.py``)."""

from __future__ import annotations

from collections.abc import Callable

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router, operation
from subsvc.api.endpoint import Handler
from subsvc_broadcasts import service
from subsvc_broadcasts.schemas import BroadcastCreateRequest, BroadcastListResponse, BroadcastResponse

READ, CREATE, SEND = "broadcasts:read", "broadcasts:create", "broadcasts:send"
Declare = Callable[[Handler], Handler]


async def create(
    request: Request,
    session: AsyncSession,
    payload: BroadcastCreateRequest,
    admin_id: int | None,
    admin_name: str | None,
) -> BroadcastResponse:
    new = service.NewBroadcast(**dict(payload), admin_id=admin_id, admin_name=admin_name)
    broadcast = await service.create(request.app, session, new)
    return service.response(broadcast)


async def history_page(session: AsyncSession, limit: int, offset: int) -> BroadcastListResponse:
    total, items = await service.history(session, limit, offset)
    return BroadcastListResponse(
        items=[service.response(b) for b in items], total=total, limit=limit, offset=offset
    )


def create_endpoint(router: Router) -> Declare:
    """Declare the area's create endpoint (``POST`` on the area's prefix)."""
    return router.post(
        "",
        status_code=201,
        permission=CREATE,
        responses={400: "Invalid target, button key, empty text or a caption too long for media"},
    )


def history_endpoint(router: Router) -> Declare:
    """Declare the area's history endpoint (``GET`` on the area's prefix)."""
    return router.get("", permission=READ)


@operation(
    "POST",
    "/{broadcast_id}/stop",
    permission=SEND,
    responses={400: service.NOT_RUNNING, 404: service.NOT_FOUND},
)
async def stop_broadcast(request: Request, session: AsyncSession, broadcast_id: int) -> BroadcastResponse:
    """Stop the broadcast (each area mounts it with its own description)."""
    return service.response(await service.stop(request.app, session, broadcast_id))
