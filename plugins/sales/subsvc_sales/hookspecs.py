"""Extension points of the sales plugin: the sellers complete their saved carts."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookspec

__all__ = ["sales_complete_cart", "sales_purchases_restricted"]


@hookspec(firstresult=True)
def sales_complete_cart(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    mode: str,
    payload: dict[str, Any],
    subscription_id: int | None,
) -> Awaitable[bool | None] | bool | None:
    """Complete this saved cart from the balance now if ``mode`` is yours: re-price it with
    the engine and pay through ``subsvc_sales.api.charge`` in ``session``'s transaction (the
    sales plugin commits it, with the cart's removal). Answer (an awaitable of) ``True``
    done, ``False`` not possible now (still short, no longer valid: nothing may have been
    changed), ``None`` not your mode."""


@hookspec(firstresult=True)
def sales_purchases_restricted(
    app: Starlette, session: AsyncSession, user_id: int
) -> Awaitable[bool | None] | bool | None:
    """Answer (an awaitable of) ``True`` when an administrator has restricted user
    ``user_id`` from buying or renewing subscriptions (403 with the operation's text);
    ``None`` or ``False`` otherwise. The plugin that keeps account restrictions implements it
    (``@hookimpl(optionalhook=True)``)."""
