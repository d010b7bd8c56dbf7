"""The cabinet's runtime hook: its realtime messages start with the app."""

from __future__ import annotations

from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_cabinet import realtime


@hookimpl
def startup(app: Starlette) -> None:
    realtime.subscribe(app)
