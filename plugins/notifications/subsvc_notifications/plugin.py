"""Plugin `notifications`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc_notifications import __version__
from subsvc_notifications.merging import cabinet_account_merging as cabinet_account_merging
from subsvc_notifications.models import SubscriptionEvent
from subsvc_notifications.routes import router
from subsvc_notifications.schemas import SubscriptionEventRecorded
from subsvc_notifications.service import EVENT_RECORDED

PLUGIN_NAME = "notifications"
REQUIRES = ("users", "billing", "subscriptions")
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [SubscriptionEvent]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return router.endpoints


@hookimpl
def register_events() -> Mapping[str, type[BaseModel]]:
    return {EVENT_RECORDED: SubscriptionEventRecorded}


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [{"name": "notifications", "description": "The log of subscription events the bot reports."}]
