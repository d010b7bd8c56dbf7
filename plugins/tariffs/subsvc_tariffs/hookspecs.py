"""Extension points of the tariffs plugin.

Nobody implements them yet: the VPN panel arrives with the panel plugin (issue 7), and the
payments that record which tariff they bought with theirs. Until then the panel operations
answer 503 ``VPN panel is not configured`` and a tariff's revenue is 0.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING

from subsvc.hookspecs import hookspec

if TYPE_CHECKING:
    from sqlmodel.ext.asyncio.session import AsyncSession
    from starlette.applications import Starlette

    from subsvc.panel import SquadAssignmentPanel


@hookspec(firstresult=True)
def tariffs_panel(
    app: Starlette,
) -> Awaitable[SquadAssignmentPanel | None] | SquadAssignmentPanel | None:
    """Return the VPN panel gateway (see :class:`subsvc.panel.SquadAssignmentPanel`) that
    ``available-external-squads`` and ``sync-squads`` use, or ``None`` when this plugin has no
    panel. Called per request; without one those operations answer 503."""


@hookspec
def tariff_revenue_kopeks(
    app: Starlette, session: AsyncSession, tariff_id: int
) -> Awaitable[int] | int | None:
    """Return (an awaitable of) the revenue in kopeks that this plugin's payments brought
    for tariff ``tariff_id`` (positive), or ``None`` to abstain. The answers of every
    implementation are added up into ``revenue_kopeks`` of ``GET .../{tariff_id}/stats``."""
