"""The ``extend`` carts (sales' ``sales_complete_cart``): a renewal the balance did not cover,
completed from the balance after a top-up."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_renewals.renewing import EXTEND, complete_cart


@hookimpl
async def sales_complete_cart(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    mode: str,
    payload: dict[str, Any],
    subscription_id: int | None,
) -> bool | None:
    """Renew from an ``extend`` cart now (re-priced, charged in ``session``'s transaction);
    ``None`` for the other modes."""
    if mode != EXTEND:
        return None
    return await complete_cart(app, session, user_id, payload, subscription_id)
