"""``POST /cabinet/admin/bulk/execute``: open (or find again) a run, then answer its outcome as
one JSON document or as a ``text/event-stream`` of per-target progress and a summary."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated

from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from subsvc_promo_groups.api import find_group
from subsvc_tariffs.api import find_tariff

from subsvc.api import HTTPError, Query, Router
from subsvc.auth.permissions import check_permission
from subsvc.auth.principal import Principal
from subsvc.services import services
from subsvc_bulk_actions import runs, watch
from subsvc_bulk_actions.actions import USER_LEVEL
from subsvc_bulk_actions.models import COMPLETED, BulkRunItem
from subsvc_bulk_actions.schemas import (
    BulkActionType,
    BulkExecuteRequest,
    BulkExecuteResponse,
    IdempotencyKey,
)

TAG = "Cabinet Admin Bulk Actions"
EXECUTE = "bulk_actions:execute"
A = BulkActionType
PERMISSIONS = {
    **{action: "users:subscription" for action in A},
    A.ADD_BALANCE: "users:balance",
    A.ASSIGN_PROMO_GROUP: "users:promo_group",
    A.DELETE_USER: "users:delete",
}
"""The permission each action needs besides ``bulk_actions:execute``."""
NEEDS_DAYS = (A.EXTEND_SUBSCRIPTION, A.ADD_DAYS, A.GRANT_SUBSCRIPTION)
NEEDS_TARIFF = (A.CHANGE_TARIFF, A.GRANT_SUBSCRIPTION)
POSITIVE = {A.ADD_TRAFFIC: "traffic_gb", A.ADD_BALANCE: "amount_kopeks", A.SET_DEVICES: "device_limit"}
STOPPING = "The server is stopping; repeat the request with the same Idempotency-Key for the result"
READ_PAGE = 1000

router = Router(area="cabinet-admin", tag=TAG, prefix="/cabinet/admin/bulk")


def _check_params(request: BulkExecuteRequest) -> None:
    action, params = request.action, request.params
    if request.user_ids is None and request.subscription_ids is None:
        raise HTTPError(400, "user_ids or subscription_ids is required")
    if request.subscription_ids is not None and action in USER_LEVEL:
        raise HTTPError(
            400, f"Action {action.value} operates on users, not subscriptions. Use user_ids instead."
        )
    if action in NEEDS_DAYS and params.days is None:
        raise HTTPError(400, "params.days must be a positive integer for this action")
    if action in NEEDS_TARIFF and params.tariff_id is None:
        raise HTTPError(400, f"params.tariff_id is required for {action.value} action")
    field = POSITIVE.get(action)
    if field is not None and getattr(params, field) is None:
        raise HTTPError(400, f"params.{field} must be a positive integer for {action.value} action")


async def _check_references(app: Starlette, request: BulkExecuteRequest) -> None:
    tariff_id, group_id = request.params.tariff_id, request.params.promo_group_id
    async with services(app).db.session(read_only=True) as session:
        tariff_missing = request.action in NEEDS_TARIFF and tariff_id is not None
        if tariff_missing and await find_tariff(session, tariff_id or 0) is None:
            raise HTTPError(404, "Tariff not found")
        group_missing = request.action == A.ASSIGN_PROMO_GROUP and group_id is not None
        if group_missing and await find_group(session, group_id or 0) is None:
            raise HTTPError(404, "Promo group not found")


def _data(event: BaseModel) -> bytes:
    return f"data: {json.dumps(event.model_dump(mode='json'), ensure_ascii=False)}\n\n".encode()


async def _events(app: Starlette, run_id: int) -> AsyncIterator[bytes]:
    """Each target's progress as it completes (from the first, for a repeated request), then
    the summary; ends early (no summary) when the server stops."""
    after = 0
    async with watch.watching(app, run_id) as event:
        while True:
            run = await runs.read_run(app, run_id)
            items = await runs.done_items(app, run_id, after, READ_PAGE)
            for item in items:
                yield _data(runs.progress_event(item, run.total))
                after = item.position
            if len(items) == READ_PAGE:
                continue
            if run.status == COMPLETED:
                yield _data(runs.complete_event(run))
                return
            if not await watch.moved(app, event):
                return


async def _finished(app: Starlette, run_id: int) -> BulkExecuteResponse:
    """The run's outcome once it is complete (503 when the server stops first)."""
    async with watch.watching(app, run_id) as event:
        while (run := await runs.read_run(app, run_id)).status != COMPLETED:
            if not await watch.moved(app, event):
                raise HTTPError(503, STOPPING)
    items: list[BulkRunItem] = []
    while page := await runs.done_items(app, run_id, items[-1].position if items else 0, READ_PAGE):
        items.extend(page)
    return runs.answer(run, items)


@router.post(
    "/execute",
    permission=EXECUTE,
    response_model=BulkExecuteResponse,
    also_media_type="text/event-stream",
    responses={
        400: "A parameter the action needs is missing, no targets, or subscription_ids for an "
        "action on users",
        404: "Tariff not found, or Promo group not found",
        409: runs.KEY_REUSED,
        503: STOPPING,
    },
)
async def bulk_execute(
    request: Request,
    principal: Principal,
    payload: BulkExecuteRequest,
    stream: Annotated[bool, Query(description="Stream progress via SSE")] = False,
    idempotency_key: IdempotencyKey = None,
) -> BulkExecuteResponse | Response:
    """Apply an action to many users (or subscriptions) as a durable background run.

    Needs `bulk_actions:execute` and the action's own permission (`users:subscription`,
    `users:balance`, `users:promo_group` or `users:delete`). With `stream=true` the answer is
    `text/event-stream`: a `data:` line per target as it completes (`type: progress`), then
    the summary (`type: complete`); else one JSON document once every target is done. A repeat
    with the same `Idempotency-Key` answers the same run: nothing is applied twice."""
    await check_permission(request, principal, PERMISSIONS[payload.action])
    _check_params(payload)
    await _check_references(request.app, payload)
    try:
        run_id = await runs.open_run(request.app, principal.id, payload, idempotency_key)
    except runs.KeyReused as exc:
        raise HTTPError(409, str(exc)) from None
    if stream:
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "X-Bulk-Run-Id": str(run_id)}
        return StreamingResponse(
            _events(request.app, run_id), media_type="text/event-stream", headers=headers
        )
    return await _finished(request.app, run_id)
