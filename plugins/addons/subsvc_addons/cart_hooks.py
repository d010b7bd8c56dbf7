"""The sales plugin's ``sales_complete_cart`` for addons' carts (``add_devices``,
``add_traffic``): bought after a top-up, priced and checked again."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_addons.buying import complete_cart


@hookimpl
async def sales_complete_cart(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    mode: str,
    payload: dict[str, Any],
    subscription_id: int | None,
) -> bool | None:
    """Buy the saved devices or traffic now (``None`` for another mode)."""
    return await complete_cart(app, session, user_id, mode, payload, subscription_id)
