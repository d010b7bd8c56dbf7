"""Plugin `promocodes`: what it contributes to subsvc (hook implementations only)."""

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
from subsvc_promocodes import __version__, hookspecs, service
from subsvc_promocodes.activation import ACTIVATED
from subsvc_promocodes.merging import cabinet_account_merging as cabinet_account_merging
from subsvc_promocodes.models import PromoCode, PromoCodeDiscount, PromoCodeUse
from subsvc_promocodes.routes import endpoints
from subsvc_promocodes.schemas import PromoCodeActivated
from subsvc_promocodes.settings import PromocodesSettings

PLUGIN_NAME = "promocodes"
REQUIRES = ("users", "promo_groups", "billing", "subscriptions")
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_hookspecs() -> ModuleType:
    return hookspecs


@hookimpl
def register_settings() -> type[BaseSettings]:
    return PromocodesSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [PromoCode, PromoCodeUse, PromoCodeDiscount]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return endpoints


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return {"promocodes": ["read", "create", "edit", "delete", "stats"]}


@hookimpl
def register_events() -> Mapping[str, type[BaseModel]]:
    return {ACTIVATED: PromoCodeActivated}


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [
        {
            "name": "promo-codes",
            "description": "Promo codes: balance, days, trial, promo group and discount codes.",
        },
        {"name": "Admin Promocodes", "description": "The cabinet administrators' promo codes."},
        {"name": "Cabinet Promocode", "description": "A cabinet user activates a promo code."},
    ]


# --- the promo_groups plugin's extension point: codes may name a group ---------------------------


@hookimpl
def promo_group_deleting(
    app: Starlette, session: AsyncSession, group_id: int, fallback_group_id: int
) -> Awaitable[None]:
    return service.detach_group(session, group_id)
