"""Runtime hooks: new users are attributed to the campaign they arrived with."""

from __future__ import annotations

import functools

from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_campaigns.attribution import on_user_created


@hookimpl
async def startup(app: Starlette) -> None:
    services(app).events.subscribe("user.created", functools.partial(on_user_created, app))
