"""The active discount as the buyer's personal discount, for the plugins that ask about it
without importing this one: pricing (``pricing_personal_discount``,
``pricing_consume_personal_discount``) and promocodes (``other_active_discount``,
``deactivate_other_discount``: one personal discount at a time).

Pricing asks this plugin before promocodes (``tryfirst``): in the reference a claimed offer
overwrites the user's one discount, so when a user holds both (a code's, then a claimed
offer's) the offer's is the one that holds; the code's waits for the next purchase.
"""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc.hookspecs import hookimpl
from subsvc_promo_offers.discounts import clear_active_discount, consume_active_discount, get_discount

SOURCE = "promo_offer"


async def _held(session: AsyncSession, user_id: int, source: str | None) -> dict[str, Any] | None:
    discount = await get_discount(session, user_id)
    if discount is None or not discount.is_active(utcnow()):
        return None
    return {
        "percent": discount.percent,
        "expires_at": discount.expires_at,
        "source": source or discount.source,
    }


@hookimpl(optionalhook=True, tryfirst=True)
async def pricing_personal_discount(
    app: Starlette, session: AsyncSession, user_id: int
) -> dict[str, Any] | None:
    """The user's active discount while it lasts (source ``promo_offer``), else ``None``."""
    return await _held(session, user_id, SOURCE)


@hookimpl(optionalhook=True, tryfirst=True)
async def pricing_consume_personal_discount(
    app: Starlette, session: AsyncSession, user_id: int, context: str
) -> int | None:
    """Use up the active discount in the purchase's transaction (one conditional ``DELETE``:
    of two purchases at once one gets it); its percent, ``None`` when none is active."""
    return await consume_active_discount(session, user_id, context=context) or None


@hookimpl(optionalhook=True)
async def other_active_discount(app: Starlette, session: AsyncSession, user_id: int) -> dict[str, Any] | None:
    """The active discount (its source: the offer's notification type) that refuses a
    discount code while it lasts."""
    return await _held(session, user_id, None)


@hookimpl(optionalhook=True)
async def deactivate_other_discount(app: Starlette, session: AsyncSession, user_id: int) -> int | None:
    """The administrator's deactivation of the user's discount: removed, logged ``disabled``."""
    return await clear_active_discount(session, user_id, context="admin_deactivate")
