"""The referrals plugin's runtime hooks: the configuration cache and the top-up subscriber."""

from __future__ import annotations

import functools

from starlette.applications import Starlette
from subsvc_payments.api import BALANCE_TOPPED_UP

from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_referrals.commissions import on_topped_up
from subsvc_referrals.store import CONFIG


@hookimpl
def startup(app: Starlette) -> None:
    CONFIG.start(app)
    services(app).events.subscribe(BALANCE_TOPPED_UP, functools.partial(on_topped_up, app))


@hookimpl
async def shutdown(app: Starlette) -> None:
    await CONFIG.stop(app)
