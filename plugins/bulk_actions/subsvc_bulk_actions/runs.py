"""Opening a run (idempotent by the administrator's key) and reading its progress."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.services import services
from subsvc_bulk_actions.models import (
    ITEMS,
    PENDING,
    RUNNING,
    SUBSCRIPTIONS_TARGET,
    SUCCESS,
    USERS_TARGET,
    BulkRun,
    BulkRunItem,
)
from subsvc_bulk_actions.schemas import (
    BulkCompleteEvent,
    BulkExecuteRequest,
    BulkExecuteResponse,
    BulkProgress,
    BulkProgressEvent,
    BulkUserResult,
)

RUN_JOB = "bulk_actions.run"
PROGRESS_EVENT = "bulk.progress"
COMPLETED_EVENT = "bulk.completed"
KEY_REUSED = "Idempotency-Key was already used for another bulk action"


class KeyReused(Exception):
    """The administrator's idempotency key names a run of another request (409)."""


def fingerprint(request: BulkExecuteRequest) -> str:
    """The request's digest: the same request gives the same one."""
    return hashlib.sha256(request.model_dump_json().encode()).hexdigest()


def progress_of(run: Any, status: str | None = None) -> BulkProgress:
    """The event payload of a run row (or a row of its counters)."""
    done = run.success_count + run.error_count + run.skipped_count
    return BulkProgress(
        run_id=run.id,
        action=run.action,
        actor_user_id=run.actor_user_id,
        status=status or run.status,
        total=run.total,
        done=done,
        success_count=run.success_count,
        error_count=run.error_count,
        skipped_count=run.skipped_count,
        dry_run=run.dry_run,
    )


async def _keyed(session: AsyncSession, actor: int, key: str) -> BulkRun | None:
    query = select(BulkRun).where(col(BulkRun.actor_user_id) == actor, col(BulkRun.idempotency_key) == key)
    return (await session.exec(query)).first()


def _same(run: BulkRun, digest: str) -> int:
    if run.fingerprint != digest:
        raise KeyReused(KEY_REUSED)
    assert run.id is not None
    return run.id


def targets_of(request: BulkExecuteRequest) -> tuple[str, list[int]]:
    """What the run names (subscriptions when given, else users), each once, in order."""
    if request.subscription_ids is not None:
        return SUBSCRIPTIONS_TARGET, list(dict.fromkeys(request.subscription_ids))
    return USERS_TARGET, list(dict.fromkeys(request.user_ids or []))


async def open_run(app: Starlette, actor: int, request: BulkExecuteRequest, key: str | None) -> int:
    """The run of this request: a new one (its items inserted at once, its job asked for after
    the commit), or, for a key this administrator used before, that run (:class:`KeyReused`
    when it was another request). Returns the run's id."""
    digest = fingerprint(request)
    kernel = services(app)
    async with kernel.db.session() as session:
        if key is not None and (existing := await _keyed(session, actor, key)) is not None:
            run_id = _same(existing, digest)
            if existing.status == RUNNING:
                kernel.jobs.enqueue_after_commit(session, RUN_JOB, run_id=run_id)
                await session.commit()
            return run_id
        target, ids = targets_of(request)
        run = BulkRun(
            action=request.action.value,
            params=request.params.model_dump(mode="json"),
            dry_run=request.dry_run,
            target=target,
            actor_user_id=actor,
            idempotency_key=key,
            fingerprint=digest,
            total=len(ids),
        )
        session.add(run)
        try:
            await session.flush()
        except IntegrityError:  # the same key, concurrently: the first request's run
            await session.rollback()
            assert key is not None
            found = await _keyed(session, actor, key)
            assert found is not None
            return _same(found, digest)
        assert run.id is not None
        column = "subscription_id" if target == SUBSCRIPTIONS_TARGET else "user_id"
        rows = [
            {"run_id": run.id, "position": n, "user_id": 0, column: target_id, "status": PENDING}
            for n, target_id in enumerate(ids, start=1)
        ]
        await session.exec(insert(ITEMS), params=rows)
        kernel.events.publish(session, PROGRESS_EVENT, progress_of(run))
        kernel.jobs.enqueue_after_commit(session, RUN_JOB, run_id=run.id)
        run_id = run.id
        await session.commit()
    return run_id


async def read_run(app: Starlette, run_id: int) -> BulkRun:
    async with services(app).db.session(read_only=True) as session:
        run = await session.get(BulkRun, run_id)
        assert run is not None
        return run


async def done_items(app: Starlette, run_id: int, after: int, limit: int) -> Sequence[BulkRunItem]:
    """Items applied, beyond position ``after``, in order."""
    query = (
        select(BulkRunItem)
        .where(
            col(BulkRunItem.run_id) == run_id,
            col(BulkRunItem.position) > after,
            col(BulkRunItem.status) != PENDING,
        )
        .order_by(col(BulkRunItem.position))
        .limit(limit)
    )
    async with services(app).db.session(read_only=True) as session:
        return (await session.exec(query)).all()


def result_of(item: BulkRunItem) -> BulkUserResult:
    return BulkUserResult(
        user_id=item.user_id,
        success=item.status == SUCCESS,
        message=item.message,
        username=item.username,
        subscription_id=item.subscription_id,
    )


def progress_event(item: BulkRunItem, total: int) -> BulkProgressEvent:
    result = result_of(item)
    return BulkProgressEvent(current=item.position, total=total, **result.model_dump())


def complete_event(run: BulkRun) -> BulkCompleteEvent:
    assert run.id is not None
    return BulkCompleteEvent(
        run_id=run.id,
        action=run.action,
        total=run.total,
        success_count=run.success_count,
        error_count=run.error_count,
        skipped_count=run.skipped_count,
        dry_run=run.dry_run,
    )


def answer(run: BulkRun, items: Sequence[BulkRunItem]) -> BulkExecuteResponse:
    summary = complete_event(run)
    return BulkExecuteResponse(
        **summary.model_dump(exclude={"type"}), results=[result_of(item) for item in items]
    )
