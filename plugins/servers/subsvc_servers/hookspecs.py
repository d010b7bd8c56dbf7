"""Extension points of the servers plugin.

Nobody implements them yet: the VPN panel arrives with the panel plugin (issue 7), tariffs
with theirs. Until then ``POST /servers/sync`` and ``POST /cabinet/admin/servers/sync``
answer 503 ``VPN panel is not configured`` and ``tariffs_using`` is empty.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING

from subsvc.hookspecs import hookspec

if TYPE_CHECKING:
    from sqlmodel.ext.asyncio.session import AsyncSession
    from starlette.applications import Starlette

    from subsvc.panel import SquadsPanel


@hookspec(firstresult=True)
def servers_panel(app: Starlette) -> Awaitable[SquadsPanel | None] | SquadsPanel | None:
    """Return the VPN panel's squad catalogue (see :class:`subsvc.panel.SquadsPanel`)
    that the server syncs read, or ``None`` when this plugin has no panel. Called per sync
    request; without one the syncs answer 503."""


@hookspec
def servers_tariffs_using(  # type: ignore[empty-body]
    session: AsyncSession, squad_uuid: str
) -> Awaitable[Sequence[str]] | Sequence[str]:
    """Return (an awaitable of) the names of the tariffs that offer the squad. The names of
    every implementation are merged: a server that a tariff offers cannot be deleted, and
    ``GET /cabinet/admin/servers/{id}`` lists them in ``tariffs_using``."""
