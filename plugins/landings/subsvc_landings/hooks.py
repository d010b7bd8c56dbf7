"""The landings plugin's runtime hooks: a paid guest purchase completes on the payments
plugin's ``balance.topped_up``, an unpaid one ends on its ``payment.failed``."""

from __future__ import annotations

import functools

from starlette.applications import Starlette
from subsvc_payments.api import BALANCE_TOPPED_UP, PAYMENT_FAILED

from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_landings.purchases import on_payment_failed, on_topped_up


@hookimpl
async def startup(app: Starlette) -> None:
    events = services(app).events
    events.subscribe(BALANCE_TOPPED_UP, functools.partial(on_topped_up, app))
    events.subscribe(PAYMENT_FAILED, functools.partial(on_payment_failed, app))
