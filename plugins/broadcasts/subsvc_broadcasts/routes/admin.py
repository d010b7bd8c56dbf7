"""Cabinet Admin (access JWT with `broadcasts:*`), tag "Cabinet Admin Broadcasts": the filter
screens, preview, create, history, progress, stop."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_users.api import User

from subsvc.api import HTTPError, Query, Router
from subsvc.auth.principal import Principal
from subsvc_broadcasts import buttons, filters, service
from subsvc_broadcasts.models import Broadcast
from subsvc_broadcasts.routes import common
from subsvc_broadcasts.routes.common import READ, SEND
from subsvc_broadcasts.schemas import (
    BroadcastButton,
    BroadcastButtonsResponse,
    BroadcastCreateRequest,
    BroadcastFiltersResponse,
    BroadcastListResponse,
    BroadcastPreviewRequest,
    BroadcastPreviewResponse,
    BroadcastResponse,
    BroadcastTariffsResponse,
    CombinedBroadcastCreateRequest,
    EmailFiltersResponse,
    EmailPreviewRequest,
    EmailPreviewResponse,
)

router = Router(area="cabinet-admin", tag="Cabinet Admin Broadcasts", prefix="/cabinet/admin/broadcasts")
EMAIL_UNSUPPORTED = "Email broadcasts are not supported: broadcasts are sent through the messenger only"
AdminLimit = Annotated[int, Query(ge=1, le=100)]
AdminOffset = Annotated[int, Query(ge=0)]


async def _admin_name(session: AsyncSession, principal: Principal) -> str:
    user = await session.get(User, principal.id) if principal.kind == "user" else None
    return (user.username if user is not None else None) or principal.name or f"Admin #{principal.id}"


@router.get("/filters", permission=READ)
async def get_filters(request: Request, session: AsyncSession) -> BroadcastFiltersResponse:
    """Get all available filters with user counts (the users a broadcast would reach)."""
    app = request.app
    return BroadcastFiltersResponse(
        filters=await filters.segment_filters(app, filters.FILTERS),
        tariff_filters=filters.tariff_filters(await filters.tariffs(app, session)),
        custom_filters=await filters.segment_filters(app, filters.CUSTOM_FILTERS),
    )


@router.get("/tariffs", permission=READ)
async def get_tariffs(request: Request, session: AsyncSession) -> BroadcastTariffsResponse:
    """Get tariffs for broadcast filtering."""
    return BroadcastTariffsResponse(tariffs=await filters.tariffs(request.app, session))


@router.get("/buttons", permission=READ)
async def get_buttons() -> BroadcastButtonsResponse:
    """Get available buttons for broadcasts."""
    return BroadcastButtonsResponse(
        buttons=[
            BroadcastButton(key=key, label=text, default=key in buttons.DEFAULT_BUTTONS)
            for key, (text, _) in buttons.BUTTONS.items()
        ]
    )


@router.post("/preview", permission=READ, responses={400: "Invalid target: <target>"})
async def preview_broadcast(
    request: Request, session: AsyncSession, payload: BroadcastPreviewRequest
) -> BroadcastPreviewResponse:
    """Preview broadcast recipients count."""
    await service.check_target(request.app, session, payload.target)
    return BroadcastPreviewResponse(
        target=payload.target, count=await filters.count_target(request.app, payload.target)
    )


async def _create(
    request: Request, session: AsyncSession, principal: Principal, payload: BroadcastCreateRequest
) -> BroadcastResponse:
    admin_id = principal.id if principal.kind == "user" else None
    return await common.create(request, session, payload, admin_id, await _admin_name(session, principal))


@common.create_endpoint(router)
async def create_broadcast(
    request: Request, session: AsyncSession, principal: Principal, payload: BroadcastCreateRequest
) -> BroadcastResponse:
    """Create and start a broadcast (or schedule it with ``send_at``)."""
    return await _create(request, session, principal, payload)


@common.history_endpoint(router)
async def list_broadcasts(
    session: AsyncSession, limit: AdminLimit = 20, offset: AdminOffset = 0
) -> BroadcastListResponse:
    """Get list of broadcasts with pagination (newest first)."""
    return await common.history_page(session, limit, offset)


@router.get("/email-filters", permission=READ)
async def get_email_filters(session: AsyncSession) -> EmailFiltersResponse:
    """Get all available email filters with user counts (active users with a verified e-mail)."""
    items = await filters.email_filters(session)
    return EmailFiltersResponse(filters=items, total_with_email=items[0].count)


@router.post("/email-preview", permission=READ, responses={400: "Invalid email target: <target>"})
async def preview_email_broadcast(
    session: AsyncSession, payload: EmailPreviewRequest
) -> EmailPreviewResponse:
    """Preview email broadcast recipients count."""
    count = await filters.count_email(session, payload.target)
    if count is None:
        raise HTTPError(400, f"Invalid email target: {payload.target}")
    return EmailPreviewResponse(target=payload.target, count=count)


@router.post(
    "/send",
    status_code=201,
    permission=SEND,
    responses={400: "Invalid target or text; e-mail channels are not supported"},
)
async def create_combined_broadcast(
    request: Request, session: AsyncSession, principal: Principal, payload: CombinedBroadcastCreateRequest
) -> BroadcastResponse:
    """Create and start a broadcast on a channel: ``telegram`` (the messenger) is served;
    ``email`` and ``both`` are refused with 400 (see the plugin's README)."""
    if payload.channel != "telegram":
        raise HTTPError(400, EMAIL_UNSUPPORTED)
    if not payload.message_text or not payload.message_text.strip():
        raise HTTPError(400, "Message text is required for Telegram broadcast")
    single = BroadcastCreateRequest.model_validate(dict(payload))  # the channel and e-mail fields go
    return await _create(request, session, principal, single)


@router.get("/{broadcast_id}", permission=READ, responses={404: service.NOT_FOUND})
async def get_broadcast(session: AsyncSession, broadcast_id: int) -> BroadcastResponse:
    """Get broadcast details: status and counts, readable while it sends."""
    broadcast = await session.get(Broadcast, broadcast_id)
    if broadcast is None:
        raise HTTPError(404, service.NOT_FOUND)
    return service.response(broadcast)


router.mount(common.stop_broadcast, description="Stop a running broadcast; the counts so far are kept.")
