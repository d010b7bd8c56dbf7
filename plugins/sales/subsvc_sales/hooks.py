"""The sales plugin's runtime hooks: top-ups complete saved carts; this plugin completes its
own cart modes."""

from __future__ import annotations

import functools
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_payments.api import BALANCE_TOPPED_UP

from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_sales.carts import on_topped_up
from subsvc_sales.classic import CART_MODE, complete_classic_cart
from subsvc_sales.tariff_purchase import complete_tariff_cart


@hookimpl
async def startup(app: Starlette) -> None:
    services(app).events.subscribe(BALANCE_TOPPED_UP, functools.partial(on_topped_up, app))


@hookimpl
async def sales_complete_cart(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    mode: str,
    payload: dict[str, Any],
    subscription_id: int | None,
) -> bool | None:
    """The tariff purchases' and classic purchases' carts."""
    if mode in ("tariff_purchase", "daily_tariff_purchase"):
        return await complete_tariff_cart(app, session, user_id, payload)
    if mode == CART_MODE:
        return await complete_classic_cart(app, session, user_id, payload)
    return None
