"""The support plugin's runtime hooks: the configuration cache starts and stops with the app."""

from __future__ import annotations

from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_support.store import ConfigCache, cache_of


@hookimpl
def startup(app: Starlette) -> None:
    cache_of(app)


@hookimpl
async def shutdown(app: Starlette) -> None:
    cache: ConfigCache | None = getattr(app.state, "support_config_cache", None)
    if cache is not None:
        await cache.drain()
