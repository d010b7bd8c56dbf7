"""Plugin `cabinet_auth`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic_settings import BaseSettings
from starlette.applications import Starlette
from starlette.requests import HTTPConnection

from subsvc.api import Endpoint
from subsvc.auth.principal import Principal
from subsvc.hookspecs import hookimpl
from subsvc.ratelimit import close_rate_limiter
from subsvc_cabinet_auth import __version__, guard
from subsvc_cabinet_auth.merging import cabinet_account_merging as cabinet_account_merging
from subsvc_cabinet_auth.models import CabinetRefreshToken, DeepLinkToken, UsedCredential
from subsvc_cabinet_auth.oidc import JWKSCache
from subsvc_cabinet_auth.routes import cabinet, web
from subsvc_cabinet_auth.settings import CabinetAuthSettings

PLUGIN_NAME = "cabinet_auth"
REQUIRES = ("users",)
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_settings() -> type[BaseSettings]:
    return CabinetAuthSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [CabinetRefreshToken, UsedCredential, DeepLinkToken]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return [*cabinet.router.endpoints, *web.router.endpoints]


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [
        {"name": "Cabinet Auth", "description": "Cabinet logins, sessions (JWT), the caller's standing."},
        {"name": "cabinet-auth", "description": "The bot's side of the cabinet's deep-link login."},
    ]


@hookimpl
def startup(app: Starlette) -> None:
    settings: CabinetAuthSettings = app.state.settings_of[PLUGIN_NAME]
    app.state.messenger_jwks = JWKSCache(settings)


@hookimpl
async def shutdown(app: Starlette) -> None:
    await app.state.messenger_jwks.aclose()
    await close_rate_limiter(app)


@hookimpl
def register_auth_responses() -> Mapping[str, Mapping[int, str]]:
    answers = {403: f"{guard.NOT_ACTIVE}, or deleted", 404: guard.USER_NOT_FOUND}
    return {"cabinet": answers, "cabinet-admin": answers}


@hookimpl
def authenticate(connection: HTTPConnection, area: str) -> Awaitable[Principal] | None:
    if area not in ("cabinet", "cabinet-admin"):
        return None
    return guard.authenticate(connection)
