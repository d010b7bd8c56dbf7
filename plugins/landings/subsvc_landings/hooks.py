"""The landings plugin's runtime hooks: a paid guest purchase completes on the payments
plugin's ``balance.topped_up``."""

from __future__ import annotations

import functools

from starlette.applications import Starlette
from subsvc_payments.api import BALANCE_TOPPED_UP

from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_landings.purchases import on_topped_up


@hookimpl
async def startup(app: Starlette) -> None:
    services(app).events.subscribe(BALANCE_TOPPED_UP, functools.partial(on_topped_up, app))
