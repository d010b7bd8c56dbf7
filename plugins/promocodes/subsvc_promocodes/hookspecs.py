"""Extension points of the promocodes plugin, for plugins that grant personal discounts of
their own (promo offers): a user holds one personal discount at a time.

Neither hook needs this plugin installed to be implemented: a plugin that implements them
is asked when promocodes runs, and simply not asked otherwise.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookspec


@hookspec(firstresult=True)
def other_active_discount(
    app: Starlette, session: AsyncSession, user_id: int
) -> Awaitable[Mapping[str, Any] | None] | Mapping[str, Any] | None:
    """Return (an awaitable of) the personal discount user ``user_id`` holds from your plugin
    right now — ``{"percent": int, "expires_at": datetime | None, "source": str}`` — or
    ``None``.

    Asked before a ``discount`` code is activated: while the user holds one, activation is
    refused with 400 (the reference's "You already have an active discount...").
    """


@hookspec(firstresult=True)
def deactivate_other_discount(
    app: Starlette, session: AsyncSession, user_id: int
) -> Awaitable[int | None] | int | None:
    """Clear user ``user_id``'s personal discount held by your plugin in ``session``'s
    transaction and return (an awaitable of) the percent it had; ``None`` when you hold none.

    Called by ``POST /cabinet/admin/promocodes/deactivate-discount/{user_id}`` when the user
    holds no promo-code discount (the reference clears a promo offer's discount there too).
    """
