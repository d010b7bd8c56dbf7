"""`/welcome-texts` (Web API, tag `welcome-texts`): list, create, read, change, delete."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import HTTPError, Limit, Offset, Query, Router
from subsvc.auth.principal import Principal
from subsvc_welcome_texts import service
from subsvc_welcome_texts.models import WelcomeText
from subsvc_welcome_texts.schemas import (
    WelcomeTextCreateRequest,
    WelcomeTextListResponse,
    WelcomeTextResponse,
    WelcomeTextUpdateRequest,
)

router = Router(area="web", tag="welcome-texts", prefix="/welcome-texts")
NOT_FOUND = "Welcome text not found"
IncludeInactive = Annotated[bool, Query(description="Включать неактивные тексты")]


def _response(record: WelcomeText) -> WelcomeTextResponse:
    return WelcomeTextResponse.model_validate(record)


async def _found(session: AsyncSession, welcome_text_id: int) -> WelcomeText:
    record = await service.get_text(session, welcome_text_id)
    if record is None:
        raise HTTPError(404, NOT_FOUND)
    return record


@router.get("", summary="List Welcome Texts Endpoint")
async def list_welcome_texts(
    session: AsyncSession, limit: Limit = 50, offset: Offset = 0, include_inactive: IncludeInactive = True
) -> WelcomeTextListResponse:
    """Texts, newest first; ``include_inactive=false`` leaves out the inactive ones."""
    total, records = await service.list_texts(session, limit, offset, include_inactive)
    return WelcomeTextListResponse(
        items=[_response(r) for r in records], total=total, limit=limit, offset=offset
    )


@router.post("", status_code=201, summary="Create Welcome Text Endpoint")
async def create_welcome_text(
    session: AsyncSession, principal: Principal, payload: WelcomeTextCreateRequest
) -> WelcomeTextResponse:
    """A new text (``created_by``: the API token's id); an active one deactivates the others."""
    created_by = principal.id if principal.kind == "api_token" else None
    return _response(await service.create_text(session, payload, created_by))


@router.get("/{welcome_text_id}", summary="Get Welcome Text Endpoint", responses={404: NOT_FOUND})
async def get_welcome_text(session: AsyncSession, welcome_text_id: int) -> WelcomeTextResponse:
    return _response(await _found(session, welcome_text_id))


@router.patch("/{welcome_text_id}", summary="Update Welcome Text Endpoint", responses={404: NOT_FOUND})
async def update_welcome_text(
    session: AsyncSession, welcome_text_id: int, payload: WelcomeTextUpdateRequest
) -> WelcomeTextResponse:
    """Change the fields sent (absent or null: unchanged); activating it deactivates the others."""
    record = await _found(session, welcome_text_id)
    await service.update_text(session, record, payload)
    return _response(record)


@router.delete(
    "/{welcome_text_id}",
    status_code=204,
    summary="Delete Welcome Text Endpoint",
    responses={404: NOT_FOUND},
)
async def delete_welcome_text(session: AsyncSession, welcome_text_id: int) -> None:
    await service.delete_text(session, await _found(session, welcome_text_id))
