"""Plugin `welcome_texts`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc_welcome_texts import __version__
from subsvc_welcome_texts.models import WelcomeText
from subsvc_welcome_texts.routes import router

PLUGIN_NAME = "welcome_texts"
REQUIRES: tuple[str, ...] = ()
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [WelcomeText]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return router.endpoints


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [{"name": "welcome-texts", "description": "The texts the bot greets new users with (one active)."}]
