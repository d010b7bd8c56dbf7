"""Plugin `subscriptions`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_users.hookspecs import RecordColumns

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc_subscriptions import __version__, service
from subsvc_subscriptions.merging import cabinet_account_merging as cabinet_account_merging
from subsvc_subscriptions.models import Subscription, TrafficPurchase
from subsvc_subscriptions.routes import router, users_router
from subsvc_subscriptions.schemas import SubscriptionChanged
from subsvc_subscriptions.settings import SubscriptionSettings

PLUGIN_NAME = "subscriptions"
REQUIRES = ("promo_groups", "users")
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_settings() -> type[SubscriptionSettings]:
    return SubscriptionSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [Subscription, TrafficPurchase]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return [*router.endpoints, *users_router.endpoints]


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return {"users": ["read", "subscription"]}


@hookimpl
def register_events() -> Mapping[str, type[BaseModel]]:
    return {service.EVENT_CHANGED: SubscriptionChanged}


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    description = "Subscriptions: create or replace, extend, add traffic, devices and squads, deactivate."
    return [{"name": "subscriptions", "description": description}]


@hookimpl
def user_record_extras(
    session: AsyncSession, user_ids: Sequence[int], rows: Sequence[Mapping[str, Any]]
) -> Awaitable[dict[int, dict[str, Any]]]:
    """The user record's ``subscription`` and ``subscriptions``, for a whole page at once."""
    return service.record_extras(session, user_ids, rows)


@hookimpl
def user_record_columns() -> RecordColumns:
    """On PostgreSQL the subscriptions are read with the records themselves."""
    return service.record_columns
