"""The cabinet_auth plugin's runtime hooks: the messenger's JWKS cache starts and stops with
the app, and the cabinet areas' callers are authenticated here."""

from __future__ import annotations

from collections.abc import Awaitable

from starlette.applications import Starlette
from starlette.requests import HTTPConnection

from subsvc.auth.principal import Principal
from subsvc.hookspecs import hookimpl
from subsvc.ratelimit import close_rate_limiter
from subsvc_cabinet_auth import guard
from subsvc_cabinet_auth.oidc import JWKSCache
from subsvc_cabinet_auth.settings import CabinetAuthSettings


@hookimpl
def startup(app: Starlette) -> None:
    app.state.messenger_jwks = JWKSCache(CabinetAuthSettings.of(app))


@hookimpl
async def shutdown(app: Starlette) -> None:
    await app.state.messenger_jwks.aclose()
    await close_rate_limiter(app)


@hookimpl
def authenticate(connection: HTTPConnection, area: str) -> Awaitable[Principal] | None:
    if area not in ("cabinet", "cabinet-admin"):
        return None
    return guard.authenticate(connection)
