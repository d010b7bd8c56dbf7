"""Plugin `servers`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from pydantic_settings import BaseSettings
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc_servers import __version__, hookspecs, service
from subsvc_servers.counts import CountKeeper
from subsvc_servers.models import Server, ServerPromoGroup
from subsvc_servers.routes import endpoints
from subsvc_servers.routes.cabinet import TAG
from subsvc_servers.settings import ServersSettings

PLUGIN_NAME = "servers"
REQUIRES = ("users", "promo_groups", "subscriptions")
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"
SUBSCRIPTION_CHANGED = "subscription.changed"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_hookspecs() -> ModuleType:
    return hookspecs


@hookimpl
def register_settings() -> type[BaseSettings]:
    return ServersSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [Server, ServerPromoGroup]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return endpoints


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return {"servers": ["read", "edit"]}


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [
        {
            "name": "servers",
            "description": "Servers: panel squads offered for sale, their availability, promo-group "
            "restrictions, statistics and connected users.",
        },
        {
            "name": TAG,
            "description": "Cabinet administrators' servers: list, detail, update, toggles, stats, sync.",
        },
    ]


@hookimpl
def startup(app: Starlette) -> None:
    settings = cast(ServersSettings, app.state.settings_of[PLUGIN_NAME])
    keeper = CountKeeper(app.state.db, settings.SERVERS_RECOUNT_DELAY_SECONDS)
    app.state.servers_counts = keeper
    if settings.SERVERS_LIVE_COUNTS:
        app.state.events.subscribe(SUBSCRIPTION_CHANGED, keeper.changed)


@hookimpl
async def shutdown(app: Starlette) -> None:
    await app.state.servers_counts.close()


@hookimpl
def promo_group_deleting(
    app: Starlette, session: AsyncSession, group_id: int, fallback_group_id: int
) -> Awaitable[None]:
    """The servers a deleted group could buy go to the default group (they stay restricted)."""
    return service.move_promo_group(session, group_id, fallback_group_id)
