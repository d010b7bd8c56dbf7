"""`/cabinet/promocode/...` (cabinet, tag "Cabinet Promocode"): a user activates a code, or
gives back the discount a code granted. The principal's id is the user's id."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError, Router
from subsvc.auth.principal import Principal
from subsvc.ratelimit import rate_limit
from subsvc_promocodes import activation, discounts
from subsvc_promocodes.routes.common import settings
from subsvc_promocodes.schemas import (
    PromocodeActivateRequest,
    PromocodeActivateResponse,
    PromocodeDeactivateResponse,
)

router = Router(area="cabinet", tag="Cabinet Promocode")
USER_NOT_FOUND = "User not found"
REFUSED = "The code cannot be activated: " + "; ".join(f"`{text}`" for text in activation.REFUSALS.values())


@router.post(
    "/cabinet/promocode/activate",
    responses={400: REFUSED, 404: USER_NOT_FOUND, 429: "Too many attempts from this address"},
)
async def activate_promocode(
    request: Request, session: AsyncSession, principal: Principal, payload: PromocodeActivateRequest
) -> PromocodeActivateResponse:
    """Activate a promo code for the current user.

    Once per user and code; never beyond the code's `max_uses`, however many users try at once.
    The effect: balance (a manual deposit transaction), days or traffic on the subscription
    `subscription_id` names (else: for a code bound to a tariff the user's subscription of
    that tariff, otherwise the current one; a subscription of another tariff is refused), a
    trial for a user without one, a personal discount, the code's promo group. Any refusal
    is 400 and changes nothing. Attempts are rate-limited per client address
    (`promocode_activate`, 30/minute).
    """
    await rate_limit(request, "promocode_activate", "30/minute")
    user = await activation.lock_user(session, principal.id)
    if user is None:
        raise HTTPError(404, USER_NOT_FOUND)
    try:
        applied = await activation.activate(
            request.app,
            session,
            user,
            payload.code,
            daily_limit=settings(request).PROMOCODE_DAILY_ACTIVATION_LIMIT,
            subscription_id=payload.subscription_id,
        )
    except activation.ActivationRefused as refusal:
        raise HTTPError(400, refusal.message) from None
    return PromocodeActivateResponse(
        success=True, message="Promo code activated successfully", **activation.answer_fields(applied)
    )


@router.post(
    "/cabinet/promocode/deactivate-discount",
    responses={
        400: "No active discount promo code found, or Discount has already expired",
        404: USER_NOT_FOUND,
    },
)
async def deactivate_discount_promocode(
    request: Request, session: AsyncSession, principal: Principal
) -> PromocodeDeactivateResponse:
    """Deactivate the currently active discount promo code for the current user.

    The activation is undone: the code counts one use less and may be activated again, and
    a promo group the code moved the user into is left for the group they were in.
    """
    user = await activation.lock_user(session, principal.id)
    if user is None:
        raise HTTPError(404, USER_NOT_FOUND)
    try:
        done = await discounts.deactivate(request.app, session, user)
    except discounts.NoDiscount:
        raise HTTPError(400, "No active discount promo code found") from None
    except discounts.DiscountExpired:
        raise HTTPError(400, "Discount has already expired") from None
    return PromocodeDeactivateResponse(
        success=True,
        message="Discount promo code deactivated successfully",
        deactivated_code=done.code,
        discount_percent=done.percent,
    )
