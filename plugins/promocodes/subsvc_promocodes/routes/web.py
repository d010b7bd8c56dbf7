"""`/promo-codes` (Web API, tag `promo-codes`): list, read with usage, create, change, delete."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import Router
from subsvc_promocodes.routes import common
from subsvc_promocodes.schemas import PromoCodeResponse, WebPromoCodeCreateRequest, WebPromoCodeUpdateRequest

router = Router(area="web", tag="promo-codes", prefix="/promo-codes")
router.mount(common.list_promocodes)
router.mount(common.get_promocode)


@router.post("", **common.CREATE_OPTIONS)
async def create_promocode_endpoint(
    session: AsyncSession, payload: WebPromoCodeCreateRequest
) -> PromoCodeResponse:
    """Add a code (trimmed, upper-cased, unique). `max_uses: 0` is unlimited; `created_by` ≤ 0
    means nobody."""
    creator = payload.created_by if payload.created_by is not None and payload.created_by > 0 else None
    return await common.create(session, payload, creator)


@router.patch(common.CODE, **common.UPDATE_OPTIONS)
async def update_promocode_endpoint(
    session: AsyncSession, promocode_id: int, payload: WebPromoCodeUpdateRequest
) -> PromoCodeResponse:
    """Change the given fields; the rules are checked on the code as it would be."""
    return await common.change(session, promocode_id, payload)


router.mount(common.delete_promocode_endpoint)
