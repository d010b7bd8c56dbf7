"""`/cabinet/admin/promocodes` (Cabinet Admin, tag "Admin Promocodes"): list, read with
usage, create, change, delete, and taking back a user's active discount."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError, Router
from subsvc.auth.principal import Principal
from subsvc_promocodes import discounts, service
from subsvc_promocodes.activation import lock_user
from subsvc_promocodes.routes import common
from subsvc_promocodes.schemas import (
    DeactivateDiscountResponse,
    PromoCodeCreateRequest,
    PromoCodeResponse,
    PromoCodeUpdateRequest,
)

router = Router(area="cabinet-admin", tag="Admin Promocodes", prefix="/cabinet/admin/promocodes")
NO_DISCOUNT = "User has no active discount"
EXPIRED = "Discount has already expired"

router.mount(
    common.list_promocodes, description="Get list of all promocodes: newest first, `is_active` filters."
)
router.mount(
    common.get_promocode,
    description="Get promocode details with usage statistics (`total_uses`, `today_uses` since "
    "midnight UTC, `recent_uses`).",
)


@router.post("", **common.CREATE_OPTIONS)
async def create_promocode_endpoint(
    session: AsyncSession, principal: Principal, payload: PromoCodeCreateRequest
) -> PromoCodeResponse:
    """Create a new promocode (trimmed, upper-cased, unique; `max_uses: 0` is unlimited); the
    caller is its `created_by`."""
    creator = await service.existing_user_id(session, principal.id) if principal.kind == "user" else None
    return await common.create(session, payload, creator)


@router.patch(common.CODE, **common.UPDATE_OPTIONS)
async def update_promocode_endpoint(
    session: AsyncSession, promocode_id: int, payload: PromoCodeUpdateRequest
) -> PromoCodeResponse:
    """Update an existing promocode: the given fields, the rules checked on the result."""
    return await common.change(session, promocode_id, payload)


router.mount(
    common.delete_promocode_endpoint,
    description="Delete a promocode and its uses (discounts it granted stay).",
)


@router.post(
    "/deactivate-discount/{user_id}",
    permission=common.EDIT,
    responses={404: "User not found", 400: f"{NO_DISCOUNT}, or {EXPIRED}"},
)
async def admin_deactivate_discount_promocode(
    request: Request, session: AsyncSession, user_id: int
) -> DeactivateDiscountResponse:
    """Admin: deactivate a user's active discount (promo code or promo offer).

    A promo-code discount is taken back as the user's own deactivation does (the activation
    undone); otherwise the plugins that grant discounts (promo offers) are asked to clear
    theirs. `user_id` is the internal id.
    """
    user = await lock_user(session, user_id)
    if user is None:
        raise HTTPError(404, "User not found")
    expired = False
    try:
        done = await discounts.deactivate(request.app, session, user)
    except discounts.DiscountExpired:
        expired = True
    except discounts.NoDiscount:
        pass
    else:
        message = f"Discount promo code deactivated for user {user_id}"
        return DeactivateDiscountResponse(
            success=True,
            message=message,
            deactivated_code=done.code,
            discount_percent=done.percent,
            user_id=user_id,
        )
    percent = await discounts.deactivate_other(request.app, session, user_id)
    if percent is None:
        raise HTTPError(400, EXPIRED if expired else NO_DISCOUNT)
    message = f"Promo offer deactivated for user {user_id}"
    return DeactivateDiscountResponse(
        success=True, message=message, discount_percent=percent, user_id=user_id
    )
