"""Plugin `pinned_messages`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_settings import BaseSettings

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc.jobs import Job
from subsvc_pinned_messages import __version__
from subsvc_pinned_messages.merging import cabinet_account_merging as cabinet_account_merging
from subsvc_pinned_messages.models import MODELS
from subsvc_pinned_messages.routes import admin, web
from subsvc_pinned_messages.routes.common import PERMISSIONS
from subsvc_pinned_messages.runs import FINISHED_EVENT
from subsvc_pinned_messages.schemas import PinnedMessageRunFinished
from subsvc_pinned_messages.sender import JOBS
from subsvc_pinned_messages.settings import PinnedMessagesSettings

PLUGIN_NAME = "pinned_messages"
REQUIRES = ("users", "segments")
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_settings() -> type[BaseSettings]:
    return PinnedMessagesSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return MODELS


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return [*web.endpoints, *admin.endpoints]


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return PERMISSIONS


@hookimpl
def register_events() -> Mapping[str, type[BaseModel]]:
    return {FINISHED_EVENT: PinnedMessageRunFinished}


@hookimpl
def register_jobs() -> Sequence[Job]:
    return JOBS


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [
        {
            "name": "pinned-messages",
            "description": "The message shown at /start (at most one active); its broadcast (send and pin) "
            "and unpin in every user's chat.",
        },
        {
            "name": "Cabinet Admin Pinned Messages",
            "description": "Cabinet administrators' pinned messages: the Web API's operations.",
        },
    ]
