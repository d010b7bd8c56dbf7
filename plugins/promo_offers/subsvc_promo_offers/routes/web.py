"""Web API (X-API-Key), tag `promo-offers`: offers, their broadcast (no notifications), the log
and the templates."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_subscriptions import api as subscriptions

from subsvc.api import BigInt, HTTPError, Limit, Offset, Page, Query, Router
from subsvc_promo_offers import offers, recipients
from subsvc_promo_offers.logs import list_logs
from subsvc_promo_offers.routes.common import (
    CREATE,
    READ,
    SEND,
    PositiveId,
    Text,
    check_terms,
    mount_templates,
)
from subsvc_promo_offers.schemas import (
    PromoOfferCreateRequest,
    PromoOfferLogResponse,
    PromoOfferResponse,
    WebPromoOfferBroadcastRequest,
    WebPromoOfferBroadcastResponse,
)

router = Router(area="web", tag="promo-offers", prefix="/promo-offers")

OFFER_NOT_FOUND = "Promo offer not found"
USER_REQUIRED = "user_id or messenger_id is required"
SUBSCRIPTION_NOT_FOUND = "Subscription not found"
SUBSCRIPTION_NOT_USERS = "Subscription does not belong to the user"
SUBSCRIPTION_SINGLE_USER = "subscription_id можно использовать только при отправке одному пользователю"
USER_NOT_FOUND = "User not found"
IDS_DISAGREE = "messenger_id does not match the provided user_id"


async def _check_subscription(session: AsyncSession, subscription_id: int | None, user_id: int) -> None:
    if subscription_id is None:
        return
    subscription = await subscriptions.get(session, subscription_id)
    if subscription is None:
        raise HTTPError(404, SUBSCRIPTION_NOT_FOUND)
    if subscription.user_id != user_id:
        raise HTTPError(400, SUBSCRIPTION_NOT_USERS)


@router.get(
    "",
    permission=READ,
    responses={400: IDS_DISAGREE, 404: f"{USER_NOT_FOUND} (no user has the messenger_id)"},
)
async def list_promo_offers(
    session: AsyncSession,
    limit: Limit = 50,
    offset: Offset = 0,
    user_id: PositiveId = None,
    messenger_id: Annotated[BigInt | None, Query(ge=1)] = None,
    notification_type: Text = None,
    is_active: bool | None = None,
) -> Page[PromoOfferResponse]:
    """Offers, newest first, filtered by user (internal or messenger id), notification type and
    whether they are active."""
    if messenger_id is not None:
        found = await recipients.user_id_by_messenger_id(session, messenger_id)
        if found is None:
            raise HTTPError(404, USER_NOT_FOUND)
        if user_id and user_id != found:
            raise HTTPError(400, IDS_DISAGREE)
        user_id = found
    return await offers.list_offers(
        session, limit, offset, user_id=user_id, notification_type=notification_type, is_active=is_active
    )


@router.post(
    "",
    status_code=201,
    permission=CREATE,
    responses={400: "No user named, ids that disagree, blank texts", 404: "User or subscription not found"},
)
async def create_promo_offer(session: AsyncSession, payload: PromoOfferCreateRequest) -> PromoOfferResponse:
    """Offer to one user. The user's open offer of the same notification type is refreshed
    (new terms, expiry now + `valid_hours`) instead of a second one being made."""
    check_terms(payload.notification_type, payload.effect_type)
    user_id = await recipients.named_user(
        session, recipients.WEB_TEXTS, user_id=payload.user_id, messenger_id=payload.messenger_id
    )
    if user_id is None:
        raise HTTPError(400, USER_REQUIRED)
    await _check_subscription(session, payload.subscription_id, user_id)
    made = await offers.upsert_offers(
        session, [user_id], offers.OfferTerms.of(payload, payload.subscription_id)
    )
    offer = await offers.get_offer(session, made[user_id])
    assert offer is not None
    return offer


@router.post(
    "/broadcast",
    status_code=201,
    permission=SEND,
    responses={
        400: "Nobody to offer to, ids that disagree, blank texts",
        404: "User or subscription not found",
    },
)
async def broadcast_promo_offers(
    request: Request, session: AsyncSession, payload: WebPromoOfferBroadcastRequest
) -> WebPromoOfferBroadcastResponse:
    """Offer to the members of the `target` segment and/or one user (one offer per user and
    notification type, refreshed when open). No messages are sent from here."""
    check_terms(payload.notification_type, payload.effect_type)
    user_ids = await recipients.resolve(
        request.app,
        session,
        recipients.WEB_TEXTS,
        target=payload.target,
        user_id=payload.user_id,
        messenger_id=payload.messenger_id,
    )
    if payload.subscription_id is not None:
        if len(user_ids) > 1:
            raise HTTPError(400, SUBSCRIPTION_SINGLE_USER)
        await _check_subscription(session, payload.subscription_id, user_ids[0])
    made = await offers.upsert_offers(
        session, user_ids, offers.OfferTerms.of(payload, payload.subscription_id)
    )
    return WebPromoOfferBroadcastResponse(created_offers=len(made), user_ids=user_ids, target=payload.target)


@router.get("/logs", permission=READ)
async def get_promo_offer_logs(
    session: AsyncSession,
    limit: Limit = 50,
    offset: Offset = 0,
    user_id: PositiveId = None,
    offer_id: PositiveId = None,
    action: Text = None,
    source: Text = None,
) -> Page[PromoOfferLogResponse]:
    """The log (`claimed`, `consumed`, `disabled`), newest first."""
    return await list_logs(
        session, limit, offset, user_id=user_id, offer_id=offer_id, action=action, source=source
    )


# before `/{offer_id}`, as the document lists them
mount_templates(
    router,
    "api_token",
    [
        "list_promo_offer_templates_endpoint",
        "get_promo_offer_template_endpoint",
        "update_promo_offer_template_endpoint",
    ],
    list_description=None,
)


@router.get("/{offer_id}", permission=READ, responses={404: OFFER_NOT_FOUND})
async def get_promo_offer_endpoint(session: AsyncSession, offer_id: int) -> PromoOfferResponse:
    offer = await offers.get_offer(session, offer_id)
    if offer is None:
        raise HTTPError(404, OFFER_NOT_FOUND)
    return offer


endpoints = router.endpoints
