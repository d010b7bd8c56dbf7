"""What the Web API's and the cabinet administration's promo code operations share: the
permissions, the error texts and the calls of the service with its refusals as answers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError
from subsvc_promocodes import service
from subsvc_promocodes.rules import PromoCodeRuleError
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


@contextmanager
def answers() -> Iterator[None]:
    """The service's refusals as HTTP answers: an unknown code 404, a broken rule 400."""
    try:
        yield
    except service.PromoCodeNotFound:
        raise HTTPError(404, NOT_FOUND) from None
    except PromoCodeRuleError as exc:
        raise HTTPError(400, str(exc)) from None


async def list_page(
    session: AsyncSession, limit: int, offset: int, is_active: bool | None
) -> PromoCodeListResponse:
    total, codes = await service.list_codes(session, limit=limit, offset=offset, is_active=is_active)
    return PromoCodeListResponse(
        items=[service.record(code) for code in codes], total=total, limit=limit, offset=offset
    )


async def read(request: Request, session: AsyncSession, promocode_id: int) -> PromoCodeDetailResponse:
    with answers():
        code = await service.get(session, promocode_id)
    return await service.detail(session, code, settings(request).PROMOCODE_RECENT_USES)


async def create(
    session: AsyncSession, payload: PromoCodeCreateRequest, created_by: int | None
) -> PromoCodeResponse:
    with answers():
        return service.record(await service.create(session, payload, created_by=created_by))


async def change(
    session: AsyncSession, promocode_id: int, payload: PromoCodeUpdateRequest
) -> PromoCodeResponse:
    with answers():
        return service.record(await service.update(session, promocode_id, payload))


async def remove(session: AsyncSession, promocode_id: int) -> None:
    with answers():
        await service.delete(session, promocode_id)
