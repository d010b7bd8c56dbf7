"""Extension points of the campaigns plugin, for the plugins that build on it."""

from __future__ import annotations

from collections.abc import Awaitable, Collection

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookspec


@hookspec(firstresult=True)
def campaign_partner_ids(session: AsyncSession) -> Awaitable[Collection[int]] | None:
    """Return (an awaitable of) the ids of the approved partners, whom the campaign editor
    offers (``available-partners``); none answering: no partners (the ``partners`` plugin
    answers)."""
