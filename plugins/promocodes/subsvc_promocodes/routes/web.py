"""`/promo-codes` (Web API, tag `promo-codes`): list, read with usage, create, change, delete."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Limit, Offset, Router
from subsvc_promocodes.routes import common
from subsvc_promocodes.schemas import (
    PromoCodeDetailResponse,
    PromoCodeListResponse,
    PromoCodeResponse,
    WebPromoCodeCreateRequest,
    WebPromoCodeUpdateRequest,
)

router = Router(area="web", tag="promo-codes")
NOT_FOUND = {404: common.NOT_FOUND}


@router.get(
    "/promo-codes", response_model=PromoCodeListResponse, summary="List Promocodes", permission=common.READ
)
async def list_promocodes(
    session: AsyncSession, limit: Limit = 50, offset: Offset = 0, is_active: bool | None = None
) -> PromoCodeListResponse:
    """Codes, newest first; `is_active` filters."""
    return await common.list_page(session, limit, offset, is_active)


@router.get(
    "/promo-codes/{promocode_id}",
    response_model=PromoCodeDetailResponse,
    summary="Get Promocode",
    permission=common.READ,
    responses=NOT_FOUND,
)
async def get_promocode(
    request: Request, session: AsyncSession, promocode_id: int
) -> PromoCodeDetailResponse:
    """A code with its usage: `total_uses`, `today_uses` (since midnight UTC), `recent_uses`."""
    return await common.read(request, session, promocode_id)


@router.post(
    "/promo-codes",
    response_model=PromoCodeResponse,
    status_code=201,
    summary="Create Promocode Endpoint",
    permission=common.CREATE,
    responses={400: common.RULES},
)
async def create_promocode_endpoint(
    session: AsyncSession, payload: WebPromoCodeCreateRequest
) -> PromoCodeResponse:
    """Add a code (trimmed, upper-cased, unique). `max_uses: 0` is unlimited; `created_by` ≤ 0
    means nobody."""
    creator = payload.created_by if payload.created_by is not None and payload.created_by > 0 else None
    return await common.create(session, payload, creator)


@router.patch(
    "/promo-codes/{promocode_id}",
    response_model=PromoCodeResponse,
    summary="Update Promocode Endpoint",
    permission=common.EDIT,
    responses={**NOT_FOUND, 400: common.RULES},
)
async def update_promocode_endpoint(
    session: AsyncSession, promocode_id: int, payload: WebPromoCodeUpdateRequest
) -> PromoCodeResponse:
    """Change the given fields; the rules are checked on the code as it would be."""
    return await common.change(session, promocode_id, payload)


@router.delete(
    "/promo-codes/{promocode_id}",
    status_code=204,
    summary="Delete Promocode Endpoint",
    permission=common.DELETE,
    responses=NOT_FOUND,
)
async def delete_promocode_endpoint(session: AsyncSession, promocode_id: int) -> None:
    """Delete a code and its uses (discounts it granted stay)."""
    await common.remove(session, promocode_id)
