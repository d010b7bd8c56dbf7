"""The panel_sync plugin's jobs: the queue's push, full syncs, their resumption, the auto sync."""

from __future__ import annotations

from starlette.applications import Starlette

from subsvc.jobs import Job
from subsvc_panel_sync import runs
from subsvc_panel_sync.queue import PUSH_JOB, Pusher
from subsvc_panel_sync.settings import PanelSyncSettings


def _settings(app: Starlette) -> PanelSyncSettings:
    return PanelSyncSettings.of(app)


async def push(app: Starlette) -> None:
    """The job: push every queued change that is due."""
    pusher: Pusher = app.state.panel_sync_pusher
    await pusher.drain()


async def run(app: Starlette, run_id: int) -> None:
    """The job: work a full sync through."""
    await runs.execute(app, run_id)


JOBS = [
    Job(PUSH_JOB, push, every=lambda app: _settings(app).PANEL_SYNC_POLL_SECONDS),
    Job(runs.RUN_JOB, run),
    Job(runs.RESUME_JOB, runs.resume, every=lambda app: _settings(app).PANEL_SYNC_LEASE_SECONDS / 2),
    Job(runs.AUTO_JOB, runs.auto, every=runs.AUTO_CHECK_SECONDS),
]
