"""Plugin `cabinet`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic_settings import BaseSettings
from starlette.applications import Starlette

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc_cabinet import __version__, realtime
from subsvc_cabinet.routes import balance, subscription
from subsvc_cabinet.settings import CabinetSettings

PLUGIN_NAME = "cabinet"
REQUIRES = ("users", "billing", "subscriptions")

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_settings() -> type[BaseSettings]:
    return CabinetSettings


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return [*subscription.endpoints, *balance.endpoints]


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [
        {"name": "Cabinet Subscription", "description": "The cabinet user's subscriptions."},
        {"name": "Cabinet Balance", "description": "The cabinet user's balance and its history."},
    ]


@hookimpl
def startup(app: Starlette) -> None:
    realtime.subscribe(app)
