"""Cabinet (access JWT), tag "Cabinet Promo": the user's offers, claiming one, the active
discount, the promo group's discounts and the loyalty tiers. The principal's id is the user's id."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from subsvc.api import HTTPError, Router, from_attributes
from subsvc.api.errors import error_response
from subsvc.auth.principal import Principal
from subsvc.db import utcnow
from subsvc_promo_offers import claims, discounts, loyalty, offers
from subsvc_promo_offers.routes.common import settings
from subsvc_promo_offers.schemas import (
    ActiveDiscountInfo,
    ClaimOfferRequest,
    ClaimOfferResponse,
    LoyaltyTiersResponse,
    MessageResponse,
    PromoGroupDiscounts,
    PromoOfferInfo,
)

router = Router(area="cabinet", tag="Cabinet Promo", prefix="/cabinet/promo")


@router.get("/offers")
async def get_promo_offers(
    request: Request, session: AsyncSession, principal: Principal
) -> list[PromoOfferInfo]:
    """Get list of available promo offers for the user.

    The user's offers that have not expired, newest first; `is_active` is true while an offer
    can still be claimed.
    """
    limit = settings(request).PROMO_OFFERS_CABINET_OFFERS_LIMIT
    found = await offers.user_offers(session, principal.id, utcnow(), limit)
    return [
        from_attributes(
            PromoOfferInfo,
            offer,
            effect_type=offer.effect_type or "percent_discount",
            is_active=offer.is_active and offer.claimed_at is None,
            is_claimed=offer.claimed_at is not None,
        )
        for offer in found
    ]


@router.get("/active-discount")
async def get_active_discount(session: AsyncSession, principal: Principal) -> ActiveDiscountInfo:
    """The discount a claimed offer gave the user: its percent while it lasts, else 0."""
    return discounts.discount_info(await discounts.get_discount(session, principal.id), utcnow())


@router.delete("/active-discount")
async def clear_active_discount(session: AsyncSession, principal: Principal) -> MessageResponse:
    """Give up the active discount (logged as `disabled`)."""
    await discounts.clear_active_discount(session, principal.id)
    return MessageResponse(message="Active discount cleared")


@router.post(
    "/claim",
    response_model=ClaimOfferResponse,
    responses={
        400: "Claimed already, expired, nothing to give, or the effect cannot apply",
        404: "Offer not found (or not the user's)",
    },
)
async def claim_promo_offer(
    request: Request, session: AsyncSession, principal: Principal, payload: ClaimOfferRequest
) -> ClaimOfferResponse | Response:
    """Claim a promo offer.

    Once: the offer's discount becomes the user's active discount, its bonus is credited to
    the balance, its days are added to the subscription, its test servers are connected. When
    any of that cannot be done nothing changes and the offer stays open.
    """
    try:
        return await claims.claim(request.app, session, principal.id, payload.offer_id)
    except claims.ClaimRefused as refused:
        if refused.expired:  # answered without raising, so the offer's deactivation is committed
            return error_response(refused.status, refused.detail)
        raise HTTPError(refused.status, refused.detail) from None


@router.get("/group-discounts")
async def get_promo_group_discounts(session: AsyncSession, principal: Principal) -> PromoGroupDiscounts:
    """The discounts of the user's promo group."""
    return await loyalty.group_discounts(session, principal.id)


@router.get("/loyalty-tiers")
async def get_loyalty_tiers(session: AsyncSession, principal: Principal) -> LoyaltyTiersResponse:
    """Get all loyalty tiers (promo groups with auto-assign thresholds) and user's progress."""
    return await loyalty.loyalty_tiers(session, principal.id)


endpoints = router.endpoints
