"""Plugin `broadcasts`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_settings import BaseSettings
from starlette.applications import Starlette

from subsvc.api import Endpoint
from subsvc.events import Event
from subsvc.hookspecs import hookimpl
from subsvc.jobs import Job
from subsvc_broadcasts import __version__
from subsvc_broadcasts.merging import cabinet_account_merging as cabinet_account_merging
from subsvc_broadcasts.models import MODELS
from subsvc_broadcasts.routes import admin, web
from subsvc_broadcasts.schemas import BroadcastProgress
from subsvc_broadcasts.sender import JOBS, state_of
from subsvc_broadcasts.service import PROGRESS_EVENT
from subsvc_broadcasts.settings import BroadcastsSettings

PLUGIN_NAME = "broadcasts"
REQUIRES = ("users", "subscriptions", "segments", "tariffs")
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_settings() -> type[BaseSettings]:
    return BroadcastsSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return MODELS


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return [*web.router.endpoints, *admin.router.endpoints]


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return {"broadcasts": ["read", "create", "edit", "delete", "send"]}


@hookimpl
def register_events() -> Mapping[str, type[BaseModel]]:
    return {PROGRESS_EVENT: BroadcastProgress}


@hookimpl
def register_jobs() -> Sequence[Job]:
    return JOBS


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [
        {
            "name": "broadcasts",
            "description": "Messenger broadcasts to a target segment: create, history, stop.",
        },
        {
            "name": "Cabinet Admin Broadcasts",
            "description": "Cabinet administrators' broadcasts: filters with counts, preview, create, "
            "progress, history, stop.",
        },
    ]


@hookimpl
async def startup(app: Starlette) -> None:
    """This process's sender identity; progress events also go to administrators' cabinet sockets."""
    state_of(app)

    async def to_cabinet_admins(event: Event) -> None:
        await app.state.realtime.send_to_cabinet_admins({"type": PROGRESS_EVENT, **event.payload})

    app.state.events.subscribe(PROGRESS_EVENT, to_cabinet_admins)
