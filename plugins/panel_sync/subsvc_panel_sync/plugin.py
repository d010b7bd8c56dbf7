"""Plugin `panel_sync`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_settings import BaseSettings
from sqlalchemy.orm import Session
from starlette.applications import Starlette

from subsvc.api import Endpoint
from subsvc.events import Event
from subsvc.hookspecs import hookimpl
from subsvc.jobs import Job
from subsvc_panel_sync import __version__, runs
from subsvc_panel_sync.models import PanelSyncControl, PanelSyncRun, PanelSyncState
from subsvc_panel_sync.progress import PROGRESS_EVENT, SyncProgress
from subsvc_panel_sync.queue import PUSH_JOB, Pusher, record_changes
from subsvc_panel_sync.routes import endpoints
from subsvc_panel_sync.settings import PanelSyncSettings

PLUGIN_NAME = "panel_sync"
REQUIRES = ("users", "subscriptions", "panel")
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


def _settings(app: Starlette) -> PanelSyncSettings:
    settings: PanelSyncSettings = app.state.settings_of[PLUGIN_NAME]
    return settings


async def push(app: Starlette) -> None:
    """The job: push every queued change that is due."""
    pusher: Pusher = app.state.panel_sync_pusher
    await pusher.drain()


async def run(app: Starlette, run_id: int) -> None:
    """The job: work a full sync through."""
    await runs.execute(app, run_id)


@hookimpl
def register_settings() -> type[BaseSettings]:
    return PanelSyncSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [PanelSyncState, PanelSyncRun, PanelSyncControl]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return endpoints


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return {"panel": ["read", "sync", "manage"]}


@hookimpl
def register_events() -> Mapping[str, type[BaseModel]]:
    return {PROGRESS_EVENT: SyncProgress}


@hookimpl
def register_jobs() -> Sequence[Job]:
    return [
        Job(PUSH_JOB, push, every=lambda app: _settings(app).PANEL_SYNC_POLL_SECONDS),
        Job(runs.RUN_JOB, run),
        Job(runs.RESUME_JOB, runs.resume, every=lambda app: _settings(app).PANEL_SYNC_LEASE_SECONDS / 2),
        Job(runs.AUTO_JOB, runs.auto, every=runs.AUTO_CHECK_SECONDS),
    ]


@hookimpl
def startup(app: Starlette) -> None:
    """Queue every subscription change with the change itself, and push the queue."""
    app.state.panel_sync_pusher = Pusher(app)
    jobs = app.state.jobs

    def queue(session: Session, events: list[Event]) -> None:
        if record_changes(session, events):
            jobs.enqueue_after_commit(session, PUSH_JOB)

    app.state.events.subscribe_in_transaction(queue)

    async def to_cabinet_admins(event: Event) -> None:
        await app.state.realtime.send_to_cabinet_admins({"type": PROGRESS_EVENT, **event.payload})

    app.state.events.subscribe(PROGRESS_EVENT, to_cabinet_admins)
