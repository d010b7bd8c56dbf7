"""Plugin `servers`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from subsvc.hookspecs import hookimpl
from subsvc_servers import __version__
from subsvc_servers.models import Server, ServerPromoGroup

PLUGIN_NAME = "servers"
REQUIRES = ("users", "promo_groups", "subscriptions")
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [Server, ServerPromoGroup]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS
