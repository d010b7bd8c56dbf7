"""The referrals plugin's runtime hooks: the configuration cache and the top-up subscriber."""

from __future__ import annotations

import functools

from starlette.applications import Starlette
from subsvc_payments.api import BALANCE_TOPPED_UP

from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_referrals.commissions import on_topped_up
from subsvc_referrals.store import ConfigCache, cache_of


@hookimpl
def startup(app: Starlette) -> None:
    cache_of(app)
    services(app).events.subscribe(BALANCE_TOPPED_UP, functools.partial(on_topped_up, app))


@hookimpl
async def shutdown(app: Starlette) -> None:
    cache: ConfigCache | None = getattr(app.state, "referral_config_cache", None)
    if cache is not None:
        await cache.drain()
