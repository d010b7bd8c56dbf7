"""Extension points of the panel_sync plugin."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any

from starlette.applications import Starlette

from subsvc.hookspecs import hookspec


@hookspec(firstresult=True)
def panel_sync_servers(app: Starlette) -> Awaitable[Mapping[str, Any]]:  # type: ignore[empty-body]
    """Bring the servers in step with the panel's squads, as part of a sync from the panel, in
    a transaction of its own: ``{"success": True, "created", "updated", "removed", "total"}``
    or ``{"success": False, "error"}``. Implemented by the plugin that keeps the servers
    (``optionalhook``); without one the sync reports the step as skipped."""
