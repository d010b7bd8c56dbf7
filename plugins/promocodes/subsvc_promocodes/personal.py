"""A discount code's discount as the buyer's personal discount, for pricing (its hooks
``pricing_personal_discount`` and ``pricing_consume_personal_discount``, implemented without
importing pricing). promo_offers is asked first (a claimed offer's discount holds over a
code's, as in the reference, where the claim overwrote it); this plugin answers after it."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_promocodes import discounts

SOURCE = "promocode"


@hookimpl(optionalhook=True)
async def pricing_personal_discount(
    app: Starlette, session: AsyncSession, user_id: int
) -> dict[str, Any] | None:
    """The user's code discount while it holds (until ``expires_at``, or without one until the
    first purchase), else ``None``."""
    found = await discounts.active(session, user_id)
    if found is None or found.percent <= 0:
        return None
    return {"percent": found.percent, "expires_at": found.expires_at, "source": SOURCE}


@hookimpl(optionalhook=True)
async def pricing_consume_personal_discount(
    app: Starlette, session: AsyncSession, user_id: int, context: str
) -> int | None:
    """Use up the code discount in the purchase's transaction (a conditional ``DELETE``)."""
    return await discounts.consume(session, user_id)
