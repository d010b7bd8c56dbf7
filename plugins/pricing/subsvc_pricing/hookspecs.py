"""Extension points of the pricing plugin: the personal discounts other plugins grant.

A buyer holds one personal discount at a time (a claimed promo offer, a discount code). The
plugins that grant them implement both hooks (``@hookimpl(optionalhook=True)``: pricing need
not be installed), without importing pricing: the discount is answered as a mapping.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookspec


@hookspec(firstresult=True)
def pricing_personal_discount(
    app: Starlette, session: AsyncSession, user_id: int
) -> Awaitable[Mapping[str, Any] | None] | Mapping[str, Any] | None:
    """Return (an awaitable of) the personal discount user ``user_id`` holds from your plugin
    right now — ``{"percent": int, "expires_at": datetime | None, "source": "promo_offer" |
    "promocode"}`` — or ``None`` (none, or expired). The first answer is the buyer's."""


@hookspec(firstresult=True)
def pricing_consume_personal_discount(
    app: Starlette, session: AsyncSession, user_id: int, context: str
) -> Awaitable[int | None] | int | None:
    """Use up user ``user_id``'s personal discount from your plugin in ``session``'s
    transaction (a purchase that used it is being paid; ``context`` says which) and return
    (an awaitable of) its percent; ``None`` when you hold none that is still valid. Atomic:
    two purchases at once cannot both consume it. Rolled back with the purchase."""
