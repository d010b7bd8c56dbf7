"""Plugin `tariffs`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc_tariffs import __version__, hookspecs, purchase, service
from subsvc_tariffs.models import Tariff, TariffPromoGroup
from subsvc_tariffs.routes import CREATED, DELETED, UPDATED, router
from subsvc_tariffs.schemas import TariffEvent
from subsvc_tariffs.settings import TariffsSettings

PLUGIN_NAME = "tariffs"
REQUIRES = ("subscriptions", "promo_groups", "servers")
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_hookspecs() -> ModuleType:
    return hookspecs


@hookimpl
def register_settings() -> type[TariffsSettings]:
    return TariffsSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [Tariff, TariffPromoGroup]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return router.endpoints


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return {"tariffs": ["read", "create", "edit", "delete"]}


@hookimpl
def register_events() -> Mapping[str, type[BaseModel]]:
    return {CREATED: TariffEvent, UPDATED: TariffEvent, DELETED: TariffEvent}


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    description = (
        "Tariffs: the catalogue of subscription plans (period prices, limits, servers, promo groups)."
    )
    return [{"name": "Cabinet Admin Tariffs", "description": description}]


@hookimpl
def promo_group_deleting(
    app: Starlette, session: AsyncSession, group_id: int, fallback_group_id: int
) -> Awaitable[None]:
    """Take the group off the tariffs that allow other groups too (see
    :func:`subsvc_tariffs.service.forget_promo_group`)."""
    return service.forget_promo_group(session, group_id)


@hookimpl(optionalhook=True)
def cabinet_admin_user_tariffs(
    session: AsyncSession, user_id: int, promo_group_id: int | None, include_inactive: bool
) -> Awaitable[list[dict[str, Any]]]:
    """The tariffs of ``GET /cabinet/admin/users/{id}/available-tariffs`` (when the
    cabinet_admin_users plugin runs), each marked available or not for the user's group."""
    return purchase.user_tariffs(session, promo_group_id, include_inactive=include_inactive)


@hookimpl
def servers_tariffs_using(session: AsyncSession, squad_uuid: str) -> Awaitable[list[str]]:
    """The tariffs offering a server's squad: the servers plugin refuses to delete such a
    server and lists them in its detail."""
    return service.tariffs_offering(session, squad_uuid)
