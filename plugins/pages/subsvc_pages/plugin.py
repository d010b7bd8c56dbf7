"""Plugin `pages`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc_pages import __version__
from subsvc_pages.models import FaqPage, FaqSetting, PrivacyPolicy, PublicOffer, ServiceRule
from subsvc_pages.routes import router

PLUGIN_NAME = "pages"
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "__version__"]


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [ServiceRule, PublicOffer, PrivacyPolicy, FaqSetting, FaqPage]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return router.endpoints


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    description = "Information pages: service rules (versioned), public offer, privacy policy and FAQ."
    return [{"name": "pages", "description": description}]


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return {"info_pages": ["read", "create", "edit", "delete"]}
