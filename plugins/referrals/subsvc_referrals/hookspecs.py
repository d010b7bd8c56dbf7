"""Extension points of the referrals plugin, for the plugins that build on it."""

from __future__ import annotations

from collections.abc import Awaitable

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookspec


@hookspec(firstresult=True)
def referral_commission_percent(session: AsyncSession, user_id: int) -> Awaitable[int | None] | int | None:
    """Return (an awaitable of) the individual commission percent of referrer ``user_id``
    (0..100), or ``None`` when the user has none (the global percent applies). The first
    implementation that answers decides (the ``partners`` plugin, for approved partners)."""
