"""Cabinet Admin (access JWT with `promo_offers:*`), tag "Admin Promo Offers": templates, offers,
the broadcast with messenger notifications and its progress, the log."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError, Limit, Offset, Page, Router, fits_int32
from subsvc.auth.principal import Principal
from subsvc.services import services
from subsvc_promo_offers import offers, recipients, segments
from subsvc_promo_offers.broadcast import broadcast_offer
from subsvc_promo_offers.logs import list_logs
from subsvc_promo_offers.models import OfferBroadcast
from subsvc_promo_offers.routes.common import (
    READ,
    SEND,
    PositiveId,
    Text,
    check_terms,
    mount_templates,
)
from subsvc_promo_offers.schemas import (
    BroadcastProgress,
    PromoOfferBroadcastRequest,
    PromoOfferBroadcastResponse,
    PromoOfferLogResponse,
    PromoOfferResponse,
    PromoOfferSegment,
    PromoOfferSegmentListResponse,
)

router = Router(area="cabinet-admin", tag="Admin Promo Offers", prefix="/cabinet/admin/promo-offers")

BROADCAST_NOT_FOUND = "Broadcast not found"
MESSENGER_NOT_CONFIGURED = "The messenger bot is not configured (BOT_TOKEN): notifications cannot be sent"


mount_templates(
    router,
    "user",
    ["list_templates", "get_template", "update_template"],
    list_description="Every template, by offer type (the reference's three defaults exist from the start).",
)


@router.get("/segments", permission=READ)
async def list_segments(request: Request, session: AsyncSession) -> PromoOfferSegmentListResponse:
    """How many users each segment holds now: the offers a broadcast to it would create."""
    counted = await segments.segment_counts(request.app, session)
    return PromoOfferSegmentListResponse(segments=[PromoOfferSegment(key=k, count=n) for k, n in counted])


@router.get("", permission=READ)
async def list_offers(
    session: AsyncSession,
    limit: Limit = 50,
    offset: Offset = 0,
    user_id: PositiveId = None,
    is_active: bool | None = None,
) -> Page[PromoOfferResponse]:
    """Offers, newest first, optionally of one user and by whether they are active."""
    return await offers.list_offers(session, limit, offset, user_id=user_id, is_active=is_active)


@router.post(
    "/broadcast",
    status_code=201,
    summary="Broadcast Offer",
    permission=SEND,
    responses={
        400: "Nobody to offer to, ids that disagree, blank texts",
        404: "The named user not found",
        503: "Notifications asked for but no bot token is configured",
    },
)
async def broadcast(
    request: Request, session: AsyncSession, principal: Principal, payload: PromoOfferBroadcastRequest
) -> PromoOfferBroadcastResponse:
    """Broadcast promo offer to users with optional messenger notification.

    Recipients: the members of the `target` segment (trimmed, lower-cased; `no_sub`,
    `all_users`, `active_subscribers`, `trial_users` are aliases) and the user named by
    `messenger_id`, else `email`, else `user_id`. Each gets one offer per notification type
    (an open one is refreshed). With `send_notification`, every recipient with a messenger chat
    gets a message with a claim button; the messages are sent in the background after the
    answer: `broadcast_id` names the broadcast whose progress
    `GET /cabinet/admin/promo-offers/broadcasts/{broadcast_id}` reports.
    """
    check_terms(payload.notification_type, payload.effect_type)
    if payload.send_notification and not services(request.app).messenger.configured:
        raise HTTPError(503, MESSENGER_NOT_CONFIGURED)
    created_by = None
    if principal.kind == "user" and await recipients.user_exists(session, principal.id):
        created_by = principal.id
    return await broadcast_offer(request.app, session, payload, created_by)


@router.get(
    "/broadcasts/{broadcast_id}",
    summary="Get Broadcast Progress",
    permission=READ,
    responses={404: BROADCAST_NOT_FOUND},
)
async def get_broadcast(session: AsyncSession, broadcast_id: int) -> BroadcastProgress:
    """How far a broadcast's notifications got: `status` (`queued`, `running`, `completed`),
    the messages to send, sent and failed (`blocked`: the user blocked the bot; counted in
    failed too)."""
    found = await session.get(OfferBroadcast, broadcast_id) if fits_int32(broadcast_id) else None
    if found is None:
        raise HTTPError(404, BROADCAST_NOT_FOUND)
    return BroadcastProgress.model_validate(found)


@router.get("/logs", permission=READ)
async def get_logs(
    session: AsyncSession,
    limit: Limit = 50,
    offset: Offset = 0,
    user_id: PositiveId = None,
    action: Text = None,
) -> Page[PromoOfferLogResponse]:
    """The log (`claimed`, `consumed`, `disabled`), newest first."""
    return await list_logs(session, limit, offset, user_id=user_id, action=action)


endpoints = router.endpoints
