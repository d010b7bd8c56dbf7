"""One implementation of every operation, for both API areas (the Web API and the cabinet
admin's twin routes differ only in how they are reached and who created a message). The
rules' refusals (:class:`~subsvc_pinned_messages.messages.PinnedMessageError`) are answered
as ``plugin.py`` declares them."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import col
from sqlmodel import select as select_rows
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError, Page, from_attributes
from subsvc.services import services
from subsvc_pinned_messages import messages, runs
from subsvc_pinned_messages.models import BROADCAST, UNPIN, PinnedMessage, PinnedMessageRun
from subsvc_pinned_messages.schemas import (
    PinnedMessageBroadcastResponse,
    PinnedMessageCreateRequest,
    PinnedMessageListResponse,
    PinnedMessageResponse,
    PinnedMessageRunResponse,
    PinnedMessageSettingsRequest,
    PinnedMessageUnpinResponse,
    PinnedMessageUpdateRequest,
)

READ, CREATE, EDIT, DELETE = (f"pinned_messages:{action}" for action in ("read", "create", "edit", "delete"))
PERMISSIONS = {"pinned_messages": ["read", "create", "edit", "delete"]}
RUN_NOT_FOUND = "Broadcast not found"
NOT_CONFIGURED = "The messenger bot is not configured (BOT_TOKEN): nothing can be sent"
NOT_FOUND_RESPONSES = {404: messages.NOT_FOUND}
CONTENT_RESPONSES = {400: "Content the messenger refuses (the problem is named), or nothing to send"}
SEND_RESPONSES = {503: "A broadcast asked for but no bot token is configured"}


def _response(message: PinnedMessage) -> PinnedMessageResponse:
    return PinnedMessageResponse.model_validate(message)


def _require_messenger(request: Request) -> None:
    if not services(request.app).messenger.configured:
        raise HTTPError(503, NOT_CONFIGURED)


async def list_messages(
    session: AsyncSession, limit: int, offset: int, active_only: bool
) -> PinnedMessageListResponse:
    total, items = await messages.list_messages(session, active_only=active_only, limit=limit, offset=offset)
    return PinnedMessageListResponse(
        items=[_response(item) for item in items], total=total, limit=limit, offset=offset
    )


async def get_active(session: AsyncSession) -> PinnedMessageResponse | None:
    found = await messages.active(session)
    return None if found is None else _response(found)


async def get_message(session: AsyncSession, message_id: int) -> PinnedMessageResponse:
    return _response(await messages.get_or_404(session, message_id))


async def _broadcast(
    request: Request, session: AsyncSession, message: PinnedMessage, created_by: int | None
) -> PinnedMessageBroadcastResponse:
    run = await runs.start_run(request.app, session, BROADCAST, message, created_by)
    return from_attributes(
        PinnedMessageBroadcastResponse, run, message=_response(message), broadcast_id=run.id
    )


async def create_message(
    request: Request,
    session: AsyncSession,
    payload: PinnedMessageCreateRequest,
    broadcast: bool,
    created_by: int | None,
) -> PinnedMessageBroadcastResponse:
    if broadcast:
        _require_messenger(request)
    message = await messages.create(session, payload, created_by)
    if broadcast:
        return await _broadcast(request, session, message, message.created_by)
    return PinnedMessageBroadcastResponse(message=_response(message))


async def update_message(
    session: AsyncSession, message_id: int, payload: PinnedMessageUpdateRequest
) -> PinnedMessageResponse:
    message = await messages.get_or_404(session, message_id)
    return _response(await messages.update_message(session, message, payload))


async def update_settings(
    session: AsyncSession, message_id: int, payload: PinnedMessageSettingsRequest
) -> PinnedMessageResponse:
    message = await messages.get_or_404(session, message_id)
    return _response(messages.apply_settings(message, payload))


async def activate(
    request: Request, session: AsyncSession, message_id: int, broadcast: bool, created_by: int | None
) -> PinnedMessageBroadcastResponse:
    if broadcast:
        _require_messenger(request)
    message = await messages.activate(session, message_id)
    if broadcast:
        return await _broadcast(request, session, message, await messages.existing_user(session, created_by))
    return PinnedMessageBroadcastResponse(message=_response(message))


async def broadcast(
    request: Request, session: AsyncSession, message_id: int, created_by: int | None
) -> PinnedMessageBroadcastResponse:
    message = await messages.get_or_404(session, message_id)
    _require_messenger(request)
    return await _broadcast(request, session, message, await messages.existing_user(session, created_by))


async def deactivate(session: AsyncSession) -> PinnedMessageResponse | None:
    found = await messages.deactivate_active(session)
    return None if found is None else _response(found)


async def unpin(
    request: Request, session: AsyncSession, created_by: int | None
) -> PinnedMessageUnpinResponse:
    _require_messenger(request)
    found = await messages.deactivate_active(session)
    if found is None:
        return PinnedMessageUnpinResponse(was_active=False)
    creator = await messages.existing_user(session, created_by)
    run = await runs.start_run(request.app, session, UNPIN, found, creator)
    return from_attributes(
        PinnedMessageUnpinResponse, run, unpinned_count=run.sent_count, was_active=True, broadcast_id=run.id
    )


async def delete_message(request: Request, session: AsyncSession, message_id: int) -> None:
    message = await messages.get_or_404(session, message_id)
    await runs.delete_message(request.app, session, message)


async def list_runs(session: AsyncSession, limit: int, offset: int) -> Page[PinnedMessageRunResponse]:
    total = (await session.exec(select_rows(func.count()).select_from(PinnedMessageRun))).one()
    query = (
        select_rows(PinnedMessageRun)
        .order_by(col(PinnedMessageRun.id).desc())
        .limit(limit)
        .offset(min(offset, 2**62))
    )
    items = [PinnedMessageRunResponse.model_validate(run) for run in (await session.exec(query)).all()]
    return Page[PinnedMessageRunResponse](items=items, total=int(total), limit=limit, offset=offset)


async def get_run(session: AsyncSession, run_id: int) -> PinnedMessageRunResponse:
    found = await runs.get_run(session, run_id)
    if found is None:
        raise HTTPError(404, RUN_NOT_FOUND)
    return PinnedMessageRunResponse.model_validate(found)
