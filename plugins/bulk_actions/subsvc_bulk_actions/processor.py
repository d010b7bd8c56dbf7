"""The background work: applying a run batch by batch, and the upkeep that resumes runs.

``bulk_actions.run(run_id)`` first takes the run's lease (one process per run, across
processes: ``subsvc.leases``). Then, batch by batch (``BULK_ACTIONS_BATCH_SIZE`` pending items
in order), one transaction:

1. renew the lease, only while still ours (else nothing is written: :class:`LeaseLost`);
2. claim the items: ``pending`` -> ``applying`` in one conditional UPDATE that must change
   every one of them (an item someone else applied is never applied again);
3. apply each through its owner's public API (:mod:`subsvc_bulk_actions.actions`);
4. record each outcome and the run's counters, publish ``bulk.progress``; commit.

The action and its record commit together, so every item is applied exactly once: a process
that stops between batches gives the lease back and the next one (the upkeep, at start and
every ``BULK_ACTIONS_UPKEEP_SECONDS``) goes on with the pending items; one that dies mid-batch
loses the whole batch's transaction, which its successor applies after the lease ran out. A
batch the database refuses is applied again one item per transaction, so one target costs only
itself (recorded as ``error`` with the reason).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import bindparam, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_users.api import User

from subsvc.db import in_list, storable, utcnow
from subsvc.jobs import Job
from subsvc.leases import Batches, lease_take, resume_unleased, send_batches
from subsvc.services import services
from subsvc_bulk_actions import actions, watch
from subsvc_bulk_actions.models import (
    COMPLETED,
    ERROR,
    ITEMS,
    MESSAGE_CHARS,
    PENDING,
    RUNS,
    SKIPPED,
    SUBSCRIPTIONS_TARGET,
    SUCCESS,
    UNFINISHED,
    BulkRun,
    BulkRunItem,
)
from subsvc_bulk_actions.runs import COMPLETED_EVENT, PROGRESS_EVENT, RUN_JOB, progress_of
from subsvc_bulk_actions.schemas import BulkActionParams, BulkActionType
from subsvc_bulk_actions.settings import BulkActionsSettings

log = logging.getLogger("subsvc.bulk_actions")
UPKEEP_JOB = "bulk_actions.upkeep"
APPLYING = "applying"
COUNTERS = (
    RUNS.c.id,
    RUNS.c.action,
    RUNS.c.actor_user_id,
    RUNS.c.status,
    RUNS.c.total,
    RUNS.c.success_count,
    RUNS.c.error_count,
    RUNS.c.skipped_count,
    RUNS.c.dry_run,
)
_RECORD = (
    update(ITEMS)
    .where(ITEMS.c.id == bindparam("item_id"))
    .values(
        status=bindparam("new_status"),
        message=bindparam("new_message"),
        user_id=bindparam("new_user_id"),
        username=bindparam("new_username"),
        done_at=bindparam("now"),
    )
)


class LeaseLost(Exception):
    """Another process holds the run now (or has applied these items)."""


def _settings(app: Starlette) -> BulkActionsSettings:
    return BulkActionsSettings.of(app)


def owner_of(app: Starlette) -> str:
    """This process's identity as a lease holder."""
    owner: str | None = getattr(app.state, "bulk_actions_owner", None)
    if owner is None:
        owner = app.state.bulk_actions_owner = uuid.uuid4().hex
    return owner


def _lease_end(app: Starlette) -> Any:
    return utcnow() + timedelta(seconds=_settings(app).BULK_ACTIONS_LEASE_SECONDS)


@dataclass(frozen=True)
class Run:
    """What applying needs of the run's row."""

    id: int
    action: BulkActionType
    params: BulkActionParams
    dry_run: bool
    by_subscription: bool
    actor_user_id: int

    @classmethod
    def of(cls, row: BulkRun) -> Run:
        assert row.id is not None
        return cls(
            row.id,
            BulkActionType(row.action),
            BulkActionParams.model_validate(row.params),
            row.dry_run,
            row.target == SUBSCRIPTIONS_TARGET,
            row.actor_user_id,
        )


async def take_lease(app: Starlette, run_id: int) -> Run | None:
    """Become the run's applier if it is unfinished and nobody holds it."""
    statement = lease_take(RUNS, run_id, UNFINISHED, utcnow()).values(
        lease_owner=owner_of(app), lease_until=_lease_end(app)
    )
    async with services(app).db.session() as session:
        if (await session.exec(statement)).rowcount != 1:
            return None
        row = await session.get(BulkRun, run_id)
        assert row is not None
        run = Run.of(row)
        await session.commit()
    return run


async def _claim(app: Starlette, run: Run) -> list[Any]:
    """The next batch of pending items (id, position, target), in order."""
    query = (
        select(BulkRunItem.id, BulkRunItem.user_id, BulkRunItem.subscription_id)
        .where(col(BulkRunItem.run_id) == run.id, col(BulkRunItem.status) == PENDING)
        .order_by(col(BulkRunItem.position))
        .limit(_settings(app).BULK_ACTIONS_BATCH_SIZE)
    )
    async with services(app).db.session(read_only=True) as session:
        return list((await session.exec(query)).all())


async def _hold(app: Starlette, session: AsyncSession, run: Run, ids: list[int]) -> None:
    """Renew the lease and claim the items, or raise :class:`LeaseLost`."""
    renew = (
        update(RUNS)
        .where(RUNS.c.id == run.id, RUNS.c.lease_owner == owner_of(app))
        .values(lease_until=_lease_end(app))
    )
    if (await session.exec(renew)).rowcount != 1:
        raise LeaseLost
    dialect = session.get_bind().dialect.name
    claim = (
        update(ITEMS)
        .where(in_list(ITEMS.c.id, "ids", dialect), ITEMS.c.status == PENDING)
        .values(status=APPLYING)
    )
    claimed = (await session.exec(claim, params={"ids": ids})).rowcount
    if claimed != len(ids):
        raise LeaseLost


async def _apply_one(
    app: Starlette, session: AsyncSession, run: Run, item: Any, locked: Mapping[int, User]
) -> actions.Applied:
    target = actions.Target(
        app, session, run.action, run.params, run.dry_run, run.actor_user_id, f"bulk:{run.id}:{item.id}"
    )
    if run.by_subscription:
        return await actions.to_subscription(target, item.subscription_id)
    return await actions.to_user(target, item.user_id, locked)


async def _record(
    app: Starlette, session: AsyncSession, run: Run, batch: Sequence[Any], applied: Sequence[actions.Applied]
) -> None:
    """The outcomes and the run's counters; publishes ``bulk.progress``."""
    now = utcnow()
    rows = [
        {
            "item_id": item.id,
            "new_status": result.outcome.status,
            "new_message": storable(result.outcome.message, MESSAGE_CHARS),
            "new_user_id": result.user_id,
            "new_username": result.username,
            "now": now,
        }
        for item, result in zip(batch, applied, strict=True)
    ]
    await session.exec(_RECORD, params=rows)
    statuses = [result.outcome.status for result in applied]
    counters = (
        update(RUNS)
        .where(RUNS.c.id == run.id)
        .values(
            success_count=RUNS.c.success_count + statuses.count(SUCCESS),
            error_count=RUNS.c.error_count + statuses.count(ERROR),
            skipped_count=RUNS.c.skipped_count + statuses.count(SKIPPED),
        )
        .returning(*COUNTERS)
    )
    row = (await session.exec(counters)).one()
    services(app).events.publish(session, PROGRESS_EVENT, progress_of(row))


async def _apply(app: Starlette, run: Run, batch: Sequence[Any]) -> None:
    """The batch in one transaction: claim, apply, record (see the module's text)."""
    async with services(app).db.session() as session:
        await _hold(app, session, run, [item.id for item in batch])
        locked = {} if run.by_subscription else await actions.lock_users(session, [i.user_id for i in batch])
        applied = [await _apply_one(app, session, run, item, locked) for item in batch]
        await _record(app, session, run, batch, applied)
        await session.commit()


def _reason(exc: Exception) -> str:
    words = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return f"Failed: {words[0] if words else type(exc).__name__}"


async def _refused_alone(app: Starlette, run: Run, item: Any, exc: Exception) -> None:
    """Record an item the database refused alone as ``error``, with the reason."""
    failed = actions.Applied(actions.refused(_reason(exc)), item.user_id)
    async with services(app).db.session() as session:
        await _hold(app, session, run, [item.id])
        await _record(app, session, run, [item], [failed])
        await session.commit()


async def apply_batch(app: Starlette, run: Run, batch: Sequence[Any]) -> None:
    """Apply the batch together, else one item per transaction (see the module's text)."""
    try:
        await _apply(app, run, batch)
        return
    except LeaseLost:
        raise
    except Exception as exc:
        if len(batch) == 1:
            log.warning("bulk run %s: item %s failed: %s", run.id, batch[0].id, exc)
            await _refused_alone(app, run, batch[0], exc)
            return
        log.warning("bulk run %s: a batch failed (%s); applying it one by one", run.id, exc)
    for item in batch:
        await apply_batch(app, run, [item])


async def _finish(app: Starlette, run: Run, finished: bool) -> None:
    """Complete the run (publishing ``bulk.completed``) or give its lease back."""
    mine = (RUNS.c.id == run.id, RUNS.c.lease_owner == owner_of(app))
    values: dict[str, Any] = {"lease_owner": None, "lease_until": None}
    if finished:
        values.update(status=COMPLETED, completed_at=utcnow())
    async with services(app).db.session() as session:
        row = (await session.exec(update(RUNS).where(*mine).values(**values).returning(*COUNTERS))).first()
        if row is not None and finished:
            services(app).events.publish(session, COMPLETED_EVENT, progress_of(row))
        await session.commit()
    watch.notify(app, run.id)


async def run_job(app: Starlette, run_id: int) -> None:
    """Apply the run until none of it is left, the app stops or another process takes it."""
    run = await take_lease(app, run_id)
    if run is None:
        return

    async def deliver(batch: Sequence[Any]) -> Sequence[None]:
        await apply_batch(app, run, batch)
        return [None] * len(batch)

    async def record(batch: Sequence[Any], outcomes: Sequence[None]) -> None:
        watch.notify(app, run.id)

    async def finish(finished: bool) -> None:
        await _finish(app, run, finished)

    steps = Batches(claim=lambda: _claim(app, run), deliver=deliver, record=record, finish=finish)
    try:
        await send_batches(app, steps)
    except LeaseLost:
        log.warning("bulk run %s: another process took it over", run_id)


async def upkeep(app: Starlette) -> None:
    """Ask for an applier for every unfinished run nobody holds."""
    await resume_unleased(app, RUNS, UNFINISHED, RUN_JOB, "run_id")


def _upkeep_interval(app: Starlette) -> float | None:
    return _settings(app).BULK_ACTIONS_UPKEEP_SECONDS or None


JOBS = [Job(RUN_JOB, run_job), Job(UPKEEP_JOB, upkeep, every=_upkeep_interval)]
