"""Internal plugin: Web API tokens (`/tokens`) and ``X-API-Key`` authentication."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.requests import HTTPConnection

from subsvc.auth.principal import Principal
from subsvc.db import is_database_unavailable
from subsvc.default_plugins import serving
from subsvc.hookspecs import hookimpl
from subsvc.tokens import service
from subsvc.tokens.models import ApiToken
from subsvc.tokens.routes import router

log = logging.getLogger("subsvc.tokens")


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [ApiToken]


register_routes, register_openapi_tags = serving(router, "API tokens of the Web API (`X-API-Key`).")


@hookimpl
async def startup(app: Starlette) -> None:
    state: Any = app.state
    state.token_auth = service.TokenAuthenticator(state.settings, state.db, state.bus)
    if not state.settings.WEB_API_DEFAULT_TOKEN:
        return
    try:
        async with state.db.session() as session:
            await service.ensure_bootstrap(session, state.settings)
            await session.commit()
    except Exception as exc:
        if not is_database_unavailable(exc):
            raise
        log.warning("database unavailable at start; the bootstrap token is ensured on its first use")


@hookimpl
async def shutdown(app: Starlette) -> None:
    await app.state.token_auth.drain()


@hookimpl
def authenticate(connection: HTTPConnection, area: str) -> Awaitable[Principal] | None:
    if area != "web":
        return None
    authenticator: service.TokenAuthenticator = connection.app.state.token_auth
    return authenticator.authenticate(connection)
