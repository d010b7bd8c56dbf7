"""``/miniapp/promo-codes/activate`` and ``/miniapp/promo-offers/{offer_id}/claim``: the
cabinet's activation and claim (promocodes' and promo_offers' public APIs), refused in the
object style (``{"detail": {"code", "message"}}``, ``code`` the reason)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from starlette.responses import Response
from subsvc_promo_offers.api import ClaimRefused, claim
from subsvc_promocodes.api import ActivationRefused, activate_for_user

from subsvc.api import HTTPError, Router
from subsvc.api.errors import error_response
from subsvc_miniapp import auth
from subsvc_miniapp.promo_schemas import (
    MiniAppPromoCode,
    MiniAppPromoCodeActivationRequest,
    MiniAppPromoCodeActivationResponse,
    MiniAppPromoOfferClaimRequest,
    MiniAppPromoOfferClaimResponse,
)

router = Router(area="web", tag="miniapp")

#: a refused claim's ``code`` by the cabinet's text
CLAIM_CODES = {
    "Offer not found": "not_found",
    "This offer has already been claimed": "already_claimed",
    "This offer has expired": "offer_expired",
    "Invalid offer": "invalid_offer",
    "Subscription required for this offer": "subscription_required",
}


@router.post(
    "/miniapp/promo-codes/activate",
    public=True,
    responses={
        **auth.USER_RESPONSES,
        400: "The code cannot be activated: `{code, message}`, `code` the reason (`not_found`, `expired`, "
        "`used`, `already_used_by_user`, `daily_limit`...), `message` the cabinet's text",
    },
)
async def activate_promo_code(
    request: Request, session: AsyncSession, body: MiniAppPromoCodeActivationRequest
) -> MiniAppPromoCodeActivationResponse:
    """Activate a promo code as the cabinet does (once per user and code, never beyond its
    uses; a refusal changes nothing). Days and traffic go to the user's current subscription."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    try:
        applied = await activate_for_user(request.app, session, user.id, body.code)
    except ActivationRefused as refused:
        raise HTTPError(400, {"code": refused.reason, "message": refused.message}) from None
    if applied is None:  # the user vanished since the check
        raise auth.USER_NOT_FOUND.error("object")
    code = applied.code
    return MiniAppPromoCodeActivationResponse(
        description=applied.description,
        promocode=MiniAppPromoCode(
            code=code.code,
            type=code.type,
            balance_bonus_kopeks=code.balance_bonus_kopeks,
            subscription_days=code.subscription_days,
            max_uses=code.max_uses,
            current_uses=code.current_uses,
            valid_until=code.valid_until.isoformat() if code.valid_until else None,
        ),
    )


@router.post(
    "/miniapp/promo-offers/{offer_id}/claim",
    public=True,
    response_model=MiniAppPromoOfferClaimResponse,
    responses={
        **auth.USER_RESPONSES,
        400: "`{code, message}`: `already_claimed`, `offer_expired`, `invalid_offer`, "
        "`subscription_required`",
        404: "`{code: not_found}` (the offer is not the user's), or the user's refusals",
    },
)
async def claim_promo_offer(
    request: Request,
    session: AsyncSession,
    offer_id: int,
    body: MiniAppPromoOfferClaimRequest,
) -> MiniAppPromoOfferClaimResponse | Response:
    """Claim one of the user's promo offers as the cabinet does: once; its discount, bonus,
    days or servers applied together or not at all."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    try:
        await claim(request.app, session, user.id, offer_id)
    except ClaimRefused as refused:
        detail = {"code": CLAIM_CODES.get(refused.detail, "claim_failed"), "message": refused.detail}
        if refused.expired:  # answered without raising: the offer's deactivation is committed
            return error_response(refused.status, detail)
        raise HTTPError(refused.status, detail) from None
    return MiniAppPromoOfferClaimResponse(success=True, code="claimed")
