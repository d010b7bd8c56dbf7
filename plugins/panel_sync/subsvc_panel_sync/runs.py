"""Full syncs as background jobs: starting one (one at a time, through the control row),
running it (job ``panel_sync.run``), taking up one that a stopped process left
(``panel_sync.resume``), and the scheduled auto sync (``panel_sync.auto``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, time, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_panel.api import PanelError, client_of

from subsvc.db import Database, is_database_unavailable, utcnow
from subsvc.panel import NOT_CONFIGURED
from subsvc.services import services
from subsvc_panel_sync.models import PanelSyncRun
from subsvc_panel_sync.progress import CONTROL, RUNS, Run
from subsvc_panel_sync.queries import run_sql
from subsvc_panel_sync.settings import PanelSyncSettings

log = logging.getLogger("subsvc.panel_sync")
RUN_JOB = "panel_sync.run"
RESUME_JOB = "panel_sync.resume"
AUTO_JOB = "panel_sync.auto"
AUTO_CHECK_SECONDS = 30.0
ACTIVE_RUN = ("queued", "running")

Runner = Callable[[Run], Awaitable[None]]


class Busy(Exception):
    """Another full sync is queued or running."""

    def __init__(self, run_id: int | None) -> None:
        super().__init__(f"A panel sync is already running (run {run_id})")
        self.run_id = run_id


def settings_of(app: Starlette) -> PanelSyncSettings:
    return PanelSyncSettings.of(app)


def auto_times(settings: PanelSyncSettings) -> list[str]:
    """The valid ``HH:MM`` entries of ``PANEL_SYNC_AUTO_TIMES``, sorted."""
    found = set()
    for item in settings.PANEL_SYNC_AUTO_TIMES.split(","):
        try:
            found.add(time.fromisoformat(item.strip()).strftime("%H:%M"))
        except ValueError:
            continue
    return sorted(found)


def next_auto_time(times: Sequence[str], now: datetime) -> datetime | None:
    """The first of ``times`` (UTC) after ``now``."""
    moments = []
    for day in (0, 1):
        for item in times:
            at = time.fromisoformat(item)
            moment = datetime.combine(now.date() + timedelta(days=day), at, tzinfo=UTC)
            if moment > now:
                moments.append(moment)
    return min(moments) if moments else None


async def ensure_control(session: AsyncSession) -> None:
    """The control row exists (inserted once; concurrent inserts do nothing)."""
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert(CONTROL) if dialect == "postgresql" else sqlite.insert(CONTROL)
    await run_sql(
        session,
        insert.values(id=1, auto_enabled=False, updated_at=utcnow()).on_conflict_do_nothing(
            index_elements=["id"]
        ),
    )


async def control(session: AsyncSession) -> Any:
    """The control row (``None`` before the first write)."""
    return (await run_sql(session, sa.select(CONTROL).where(CONTROL.c.id == 1))).first()


async def start_run(
    app: Starlette, session: AsyncSession, kind: str, *, mode: str | None = None, reason: str = "manual"
) -> PanelSyncRun:
    """Queue a full sync in the caller's transaction (its job is sent after the commit);
    :class:`Busy` when one is queued or running."""
    await ensure_control(session)
    now = utcnow()
    async with session.begin_nested():
        run = PanelSyncRun(
            kind=kind, mode=mode, reason=reason, status="queued", created_at=now, heartbeat_at=now
        )
        session.add(run)
        await session.flush()
        taken = await run_sql(
            session,
            sa.update(CONTROL)
            .where(CONTROL.c.id == 1, CONTROL.c.current_run_id.is_(None))
            .values(current_run_id=run.id, updated_at=now),
        )
        if taken.rowcount == 0:
            current = await control(session)
            raise Busy(current.current_run_id if current is not None else None)
    assert run.id is not None
    services(app).events.publish(
        session, "panel_sync.progress", Run(app, run.id, kind, mode, reason, "queued").payload()
    )
    services(app).jobs.enqueue_after_commit(session, RUN_JOB, run_id=run.id)
    return run


async def _claim(db: Database, run_id: int, stale_before: datetime) -> Any:
    now = utcnow()
    async with db.session() as session:
        row = (
            await run_sql(
                session,
                sa.update(RUNS)
                .where(
                    RUNS.c.id == run_id,
                    sa.or_(
                        RUNS.c.status == "queued",
                        sa.and_(RUNS.c.status == "running", RUNS.c.heartbeat_at < stale_before),
                    ),
                )
                .values(
                    status="running", started_at=sa.func.coalesce(RUNS.c.started_at, now), heartbeat_at=now
                )
                .returning(*RUNS.c),
            )
        ).first()
        await session.commit()
    return row


async def execute(app: Starlette, run_id: int) -> None:
    """The job ``panel_sync.run``: work the run through, unless another worker holds it."""
    from subsvc_panel_sync.kinds import RUNNERS

    settings = settings_of(app)
    stale_before = utcnow() - timedelta(seconds=settings.PANEL_SYNC_LEASE_SECONDS)
    row = await _claim(services(app).db, run_id, stale_before)
    if row is None:
        return
    run = Run.of(app, row)
    client = client_of(app)
    beat = asyncio.create_task(_heartbeat(services(app).db, run_id, settings.PANEL_SYNC_LEASE_SECONDS / 4))
    try:
        if not client.configured:
            raise PanelError(client.configuration_error or NOT_CONFIGURED)
        await RUNNERS[run.kind](run)
    except PanelError as exc:
        run.status, run.message = "failed", f"VPN panel error: {exc.message}"
    except Exception as exc:
        if is_database_unavailable(exc):
            log.warning("panel sync %s: database unavailable; it will be taken up again", run.id)
            return
        log.exception("panel sync %s failed", run.id)
        run.status, run.message = "failed", f"{type(exc).__name__}: {exc}"[:500]
    else:
        if run.stopping and run.status == "running":
            await run.save()  # stopped between pages: taken up again from its cursor
            return
        run.status = "done"
        run.message = run.message or f"{run.kind} finished: {run.processed} processed"
    finally:
        beat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beat
    await run.save(finished=True)


async def _heartbeat(db: Database, run_id: int, every: float) -> None:
    """Keep the run's ``heartbeat_at`` fresh while it is worked on (also inside a long page),
    so no other worker takes it up."""
    while True:
        await asyncio.sleep(every)
        with contextlib.suppress(Exception):
            async with db.session() as session:
                await run_sql(
                    session, sa.update(RUNS).where(RUNS.c.id == run_id).values(heartbeat_at=utcnow())
                )
                await session.commit()


async def resume(app: Starlette) -> None:
    """The job ``panel_sync.resume``: take up runs nobody has worked on for a lease."""
    settings = settings_of(app)
    stale_before = utcnow() - timedelta(seconds=settings.PANEL_SYNC_LEASE_SECONDS)
    async with services(app).db.session(read_only=True) as session:
        ids = (
            (
                await run_sql(
                    session,
                    sa.select(RUNS.c.id)
                    .where(RUNS.c.status.in_(ACTIVE_RUN), RUNS.c.heartbeat_at < stale_before)
                    .order_by(RUNS.c.id),
                )
            )
            .scalars()
            .all()
        )
    for run_id in ids:
        await execute(app, run_id)


async def auto(app: Starlette) -> None:
    """The job ``panel_sync.auto``: start the auto sync when it is enabled and due."""
    now = utcnow()
    times = auto_times(settings_of(app))
    async with services(app).db.session() as session:
        row = await control(session)
        if row is None or not row.auto_enabled or row.next_auto_at is None or row.next_auto_at > now:
            return
        claimed = await run_sql(
            session,
            sa.update(CONTROL)
            .where(CONTROL.c.id == 1, CONTROL.c.next_auto_at == row.next_auto_at)
            .values(next_auto_at=next_auto_time(times, now), updated_at=now),
        )
        if claimed.rowcount == 0:
            return
        try:
            run = await start_run(app, session, "auto", mode="all", reason="scheduled")
        except Busy:
            log.info("auto panel sync skipped: another sync is running")
            await session.commit()
            return
        await run_sql(session, sa.update(CONTROL).where(CONTROL.c.id == 1).values(last_auto_run_id=run.id))
        await session.commit()
