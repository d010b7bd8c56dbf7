"""The support plugin's runtime hooks: the configuration cache starts and stops with the app."""

from __future__ import annotations

from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_support.store import CONFIG


@hookimpl
def startup(app: Starlette) -> None:
    CONFIG.start(app)


@hookimpl
async def shutdown(app: Starlette) -> None:
    await CONFIG.stop(app)
