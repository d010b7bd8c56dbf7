"""Plugin `promo_groups`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc_promo_groups import __version__, admin_routes, hookspecs
from subsvc_promo_groups.models import PromoGroup
from subsvc_promo_groups.routes import router

PLUGIN_NAME = "promo_groups"
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "__version__"]


@hookimpl
def register_hookspecs() -> ModuleType:
    return hookspecs


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [PromoGroup]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return [*router.endpoints, *admin_routes.router.endpoints]


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return {"promo_groups": ["read", "create", "edit", "delete"]}


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    description = "Promo groups: discount groups of users; one is the default group of new users."
    return [{"name": "promo-groups", "description": description}]
