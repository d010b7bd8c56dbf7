"""What the Web API's and the cabinet administration's promo code operations share: the
permissions, the error texts and the calls of the service (its refusals are answered as
``plugin.py`` declares them: an unknown code 404, a broken rule 400)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc_promocodes import service
from subsvc_promocodes.schemas import (
    PromoCodeCreateRequest,
    PromoCodeDetailResponse,
    PromoCodeListResponse,
    PromoCodeResponse,
    PromoCodeUpdateRequest,
)
from subsvc_promocodes.settings import PromocodesSettings

READ, CREATE, EDIT, DELETE = (f"promocodes:{action}" for action in ("read", "create", "edit", "delete"))
NOT_FOUND = "Promo code not found"
RULES = "A rule of the code is broken: the reference's text (e.g. `Promo code with this code already exists`)"


def settings(request: Request) -> PromocodesSettings:
    return PromocodesSettings.of(request.app)


async def list_page(
    session: AsyncSession, limit: int, offset: int, is_active: bool | None
) -> PromoCodeListResponse:
    total, codes = await service.list_codes(session, limit=limit, offset=offset, is_active=is_active)
    return PromoCodeListResponse(
        items=[service.record(code) for code in codes], total=total, limit=limit, offset=offset
    )


async def read(request: Request, session: AsyncSession, promocode_id: int) -> PromoCodeDetailResponse:
    code = await service.get(session, promocode_id)
    return await service.detail(session, code, settings(request).PROMOCODE_RECENT_USES)


async def create(
    session: AsyncSession, payload: PromoCodeCreateRequest, created_by: int | None
) -> PromoCodeResponse:
    return service.record(await service.create(session, payload, created_by=created_by))


async def change(
    session: AsyncSession, promocode_id: int, payload: PromoCodeUpdateRequest
) -> PromoCodeResponse:
    return service.record(await service.update(session, promocode_id, payload))


async def remove(session: AsyncSession, promocode_id: int) -> None:
    await service.delete(session, promocode_id)
