"""What the sync endpoints do: start full syncs, read their progress and the change queue,
the recommendations, the auto sync's switch and status."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_panel.api import PanelClient, client_of, configured_client

from subsvc.api import HTTPError
from subsvc.db import utcnow
from subsvc_panel_sync.models import FAILED, PENDING, SYNCED
from subsvc_panel_sync.progress import CONTROL, RUNS, percent
from subsvc_panel_sync.queries import STATES, SUBSCRIPTIONS, run_sql, same_subscription
from subsvc_panel_sync.runs import (
    Busy,
    auto_times,
    control,
    ensure_control,
    next_auto_time,
    settings_of,
    start_run,
)
from subsvc_panel_sync.schemas import (
    AutoSyncRunResponse,
    AutoSyncStatus,
    QueueCounts,
    SubscriptionSyncState,
    SyncRun,
    SyncStatusResponse,
)

RUN_NOT_FOUND = "Sync run not found"
SUBSCRIPTION_NOT_FOUND = "Subscription not found"
STATUS_PATH = "/panel/sync/status"
LABELS = {
    "to_panel": "Sync to the panel",
    "from_panel": "Sync from the panel",
    "validate": "Subscription validation",
    "cleanup": "Cleanup of orphaned panel users",
    "statuses": "Subscription status sync",
    "auto": "Auto sync",
}


def panel(app: Starlette) -> PanelClient:
    """The configured panel client; 503 (through the panel plugin) when there is none."""
    return configured_client(app)


async def begin(
    app: Starlette, session: AsyncSession, kind: str, mode: str | None = None
) -> tuple[str, dict[str, Any]]:
    """Queue a full sync: its message and data (run id, where to follow it); 409 when one runs."""
    panel(app)
    try:
        run = await start_run(app, session, kind, mode=mode)
    except Busy as exc:
        raise HTTPError(409, str(exc)) from None
    data = {
        "run_id": run.id,
        "kind": kind,
        "mode": mode,
        "status": "queued",
        "status_url": f"{STATUS_PATH}?run_id={run.id}",
    }
    return f"{LABELS[kind]} started in the background (run {run.id})", data


def run_view(row: Any) -> SyncRun:
    values = dict(row._mapping)
    values.pop("cursor", None)
    values.pop("heartbeat_at", None)
    values["percent"] = percent(values["processed"], values["total"], values["status"])
    return SyncRun.model_validate(values)


async def queue_counts(session: AsyncSession) -> QueueCounts:
    rows = (
        await run_sql(session, sa.select(STATES.c.status, sa.func.count()).group_by(STATES.c.status))
    ).all()
    found = {status: count for status, count in rows}
    return QueueCounts(
        pending=found.get(PENDING, 0), failed=found.get(FAILED, 0), synced=found.get(SYNCED, 0)
    )


async def status(session: AsyncSession, run_id: int | None) -> SyncStatusResponse:
    query = sa.select(RUNS)
    query = (
        query.where(RUNS.c.id == run_id) if run_id is not None else query.order_by(RUNS.c.id.desc()).limit(1)
    )
    row = (await run_sql(session, query)).first()
    if row is None and run_id is not None:
        raise HTTPError(404, RUN_NOT_FOUND)
    return SyncStatusResponse(
        run=run_view(row) if row is not None else None, queue=await queue_counts(session)
    )


async def subscription_state(session: AsyncSession, subscription_id: int) -> SubscriptionSyncState:
    row = (
        await run_sql(
            session,
            sa.select(SUBSCRIPTIONS.c.id, SUBSCRIPTIONS.c.user_id, STATES)
            .outerjoin(STATES, sa.and_(STATES.c.subscription_id == SUBSCRIPTIONS.c.id, same_subscription()))
            .where(SUBSCRIPTIONS.c.id == subscription_id),
        )
    ).first()
    if row is None:
        raise HTTPError(404, SUBSCRIPTION_NOT_FOUND)
    values = row._mapping
    return SubscriptionSyncState(
        subscription_id=row.id,
        user_id=row.user_id,
        panel_sync_status=values[STATES.c.status] or PENDING,
        panel_synced_at=values[STATES.c.synced_at],
        panel_sync_error=values[STATES.c.error],
        panel_uuid=values[STATES.c.panel_uuid],
        attempts=values[STATES.c.attempts] or 0,
        next_attempt_at=values[STATES.c.next_attempt_at],
    )


async def recommendations(app: Starlette, session: AsyncSession) -> dict[str, Any]:
    """Counts on both sides and what to run about them."""
    _, panel_users = await panel(app).users_page(0, 1)
    subscriptions = int(
        (await run_sql(session, sa.select(sa.func.count()).select_from(SUBSCRIPTIONS))).scalar_one()
    )
    tracked = int((await run_sql(session, sa.select(sa.func.count()).select_from(STATES))).scalar_one())
    queue = await queue_counts(session)
    last_error = (
        await run_sql(
            session,
            sa.select(STATES.c.error)
            .where(STATES.c.status == FAILED)
            .order_by(STATES.c.updated_at.desc())
            .limit(1),
        )
    ).scalar()
    advice: list[str] = []
    never = max(subscriptions - tracked, 0)
    if queue.failed:
        advice.append(
            f"{queue.failed} subscription changes did not reach the panel (last error: {last_error}); "
            "they are retried automatically"
        )
    if never:
        advice.append(f"{never} subscriptions were never pushed to the panel: run to-panel")
    if panel_users > subscriptions:
        advice.append(
            f"The panel has {panel_users - subscriptions} users more than there are subscriptions: "
            "run from-panel (new_only) to import them, or cleanup to disable orphans"
        )
    elif subscriptions > panel_users:
        advice.append(f"{subscriptions - panel_users} subscriptions have no panel user: run to-panel")
    if not advice:
        advice.append("The service and the panel are in sync")
    return {
        "panel_users": panel_users,
        "subscriptions": subscriptions,
        "never_synced": never,
        "queue": queue.model_dump(),
        "recommendations": advice,
        "in_sync": advice == ["The service and the panel are in sync"],
    }


async def auto_status(app: Starlette, session: AsyncSession) -> AutoSyncStatus:
    row = await control(session)
    times = auto_times(settings_of(app))
    enabled = bool(row is not None and row.auto_enabled)
    answer = AutoSyncStatus(enabled=enabled, times=times)
    if enabled:
        answer.next_run = row.next_auto_at or next_auto_time(times, utcnow())
    if row is not None and row.current_run_id is not None:
        answer.is_running = True
    last = (
        await run_sql(
            session, sa.select(RUNS).where(RUNS.c.kind == "auto").order_by(RUNS.c.id.desc()).limit(1)
        )
    ).first()
    if last is not None:
        finished = last.status in ("done", "failed")
        answer.last_run_started_at = last.started_at
        answer.last_run_finished_at = last.finished_at
        answer.last_run_success = (last.status == "done") if finished else None
        answer.last_run_reason = last.reason
        answer.last_run_error = last.message if last.status == "failed" else None
        answer.last_user_stats = last.result.get("user_stats")
        answer.last_server_stats = last.result.get("server_stats")
    return answer


async def toggle(app: Starlette, session: AsyncSession, enabled: bool) -> dict[str, Any]:
    await ensure_control(session)
    next_run = next_auto_time(auto_times(settings_of(app)), utcnow()) if enabled else None
    await run_sql(
        session,
        sa.update(CONTROL)
        .where(CONTROL.c.id == 1)
        .values(auto_enabled=enabled, next_auto_at=next_run, updated_at=utcnow()),
    )
    return {"enabled": enabled, "next_run": next_run.isoformat() if next_run else None}


async def auto_run(app: Starlette, session: AsyncSession) -> AutoSyncRunResponse:
    client = client_of(app)
    if not client.configured:
        return AutoSyncRunResponse(
            started=False, success=False, error=client.configuration_error, reason="not_configured"
        )
    try:
        run = await start_run(app, session, "auto", mode="all")
    except Busy as exc:
        return AutoSyncRunResponse(started=False, reason="already_running", error=str(exc), run_id=exc.run_id)
    await run_sql(session, sa.update(CONTROL).where(CONTROL.c.id == 1).values(last_auto_run_id=run.id))
    return AutoSyncRunResponse(started=True, reason="manual", run_id=run.id)
