"""Plugin `promo_offers`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_settings import BaseSettings
from starlette.applications import Starlette

from subsvc.api import Endpoint
from subsvc.db import is_database_unavailable
from subsvc.hookspecs import hookimpl
from subsvc.jobs import Job
from subsvc_promo_offers import __version__, templates
from subsvc_promo_offers.claims import CLAIMED_EVENT
from subsvc_promo_offers.merging import cabinet_account_merging as cabinet_account_merging
from subsvc_promo_offers.models import MODELS
from subsvc_promo_offers.routes import admin, cabinet, web
from subsvc_promo_offers.schemas import OfferClaimed
from subsvc_promo_offers.sender import JOBS
from subsvc_promo_offers.settings import PromoOffersSettings

PLUGIN_NAME = "promo_offers"
REQUIRES = ("users", "promo_groups", "billing", "subscriptions", "segments")
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"
log = logging.getLogger("subsvc.promo_offers")

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_settings() -> type[BaseSettings]:
    return PromoOffersSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return MODELS


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return [*web.endpoints, *admin.endpoints, *cabinet.endpoints]


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return {"promo_offers": ["read", "create", "edit", "send"]}


@hookimpl
def register_events() -> Mapping[str, type[BaseModel]]:
    return {CLAIMED_EVENT: OfferClaimed}


@hookimpl
def register_jobs() -> Sequence[Job]:
    return JOBS


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [
        {"name": "promo-offers", "description": "Personal promo offers, their templates, log and broadcast."},
        {
            "name": "Admin Promo Offers",
            "description": "Cabinet administrators' promo offers: templates, offers, broadcasts with "
            "messenger notifications, the log.",
        },
        {
            "name": "Cabinet Promo",
            "description": "The user's offers, claims, active discount and loyalty tiers.",
        },
    ]


@hookimpl
async def startup(app: Starlette) -> None:
    """Ensure the default templates exist (the upkeep job tries again when the database is down now)."""
    try:
        async with app.state.db.session() as session:
            await templates.ensure_default_templates(session)
            await session.commit()
    except Exception as exc:
        if not is_database_unavailable(exc):
            raise
        log.warning("database unavailable at start: the promo offer templates are seeded by the upkeep job")
