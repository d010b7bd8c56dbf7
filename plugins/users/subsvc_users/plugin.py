"""Plugin `users`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel
from pydantic_settings import BaseSettings
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc_users import __version__, hookspecs, service
from subsvc_users.counts import CountCache, count_cache
from subsvc_users.merging import cabinet_account_merging as cabinet_account_merging
from subsvc_users.models import User
from subsvc_users.routes import router
from subsvc_users.schemas import UserCreatedPayload
from subsvc_users.settings import UsersSettings

PLUGIN_NAME = "users"
REQUIRES = ("promo_groups",)
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_hookspecs() -> ModuleType:
    return hookspecs


@hookimpl
def register_settings() -> type[BaseSettings]:
    return UsersSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [User]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return router.endpoints


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    actions = ["read", "edit", "block", "delete", "sync", "promo_group", "balance", "subscription"]
    return {"users": [*actions, "send_offer", "send_message", "referral"]}


@hookimpl
def register_events() -> Mapping[str, type[BaseModel]]:
    return {"user.created": UserCreatedPayload}


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    description = "Users: the searchable list, creation, lookups by messenger id or internal id, changes."
    return [{"name": "users", "description": description}]


@hookimpl
def startup(app: Starlette) -> None:
    settings: UsersSettings = app.state.settings_of["users"]
    app.state.users_count_cache = CountCache(settings.USERS_COUNT_CACHE_SECONDS)


# --- the promo_groups plugin's extension points: users are the groups' members -------------------


@hookimpl
def promo_group_member_counts(
    app: Starlette, session: AsyncSession, group_ids: Sequence[int]
) -> Awaitable[dict[int, int]]:
    return service.member_counts(session, count_cache(app), group_ids)


@hookimpl
def promo_group_deleting(
    app: Starlette, session: AsyncSession, group_id: int, fallback_group_id: int
) -> Awaitable[None]:
    return service.move_members(app, session, group_id, fallback_group_id)
