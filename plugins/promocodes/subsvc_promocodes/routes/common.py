"""What the Web API's and the cabinet administration's promo code operations share: the
permissions, the error texts, the operations both areas serve (list, read, delete; mounted by
each area's router) and the calls of the service (its refusals are answered as ``plugin.py``
declares them: an unknown code 404, a broken rule 400)."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Limit, Offset, operation
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
CODE = "/{promocode_id}"
CREATE_OPTIONS: dict[str, Any] = {
    "status_code": 201,
    "permission": CREATE,
    "responses": {400: RULES},
}
"""The create operation's declaration; each area has its own body and creator."""
UPDATE_OPTIONS: dict[str, Any] = {
    "permission": EDIT,
    "responses": {404: NOT_FOUND, 400: RULES},
}
"""The update operation's declaration; each area has its own body (the code's bounds)."""


def settings(request: Request) -> PromocodesSettings:
    return PromocodesSettings.of(request.app)


@operation("GET", "", permission=READ)
async def list_promocodes(
    session: AsyncSession, limit: Limit = 50, offset: Offset = 0, is_active: bool | None = None
) -> PromoCodeListResponse:
    """Codes, newest first; `is_active` filters."""
    total, codes = await service.list_codes(session, limit=limit, offset=offset, is_active=is_active)
    return PromoCodeListResponse(
        items=await service.records(session, codes), total=total, limit=limit, offset=offset
    )


@operation("GET", CODE, permission=READ, responses={404: NOT_FOUND})
async def get_promocode(
    request: Request, session: AsyncSession, promocode_id: int
) -> PromoCodeDetailResponse:
    """A code with its usage: `total_uses`, `today_uses` (since midnight UTC), `recent_uses`."""
    code = await service.get(session, promocode_id)
    return await service.detail(session, code, settings(request).PROMOCODE_RECENT_USES)


@operation("DELETE", CODE, status_code=204, permission=DELETE, responses={404: NOT_FOUND})
async def delete_promocode_endpoint(session: AsyncSession, promocode_id: int) -> None:
    """Delete a code and its uses (discounts it granted stay)."""
    await service.delete(session, promocode_id)


async def create(
    session: AsyncSession, payload: PromoCodeCreateRequest, created_by: int | None
) -> PromoCodeResponse:
    [answer] = await service.records(session, [await service.create(session, payload, created_by=created_by)])
    return answer


async def change(
    session: AsyncSession, promocode_id: int, payload: PromoCodeUpdateRequest
) -> PromoCodeResponse:
    [answer] = await service.records(session, [await service.update(session, promocode_id, payload)])
    return answer
