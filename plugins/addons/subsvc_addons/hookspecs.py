"""Extension points of the addons plugin."""

from __future__ import annotations

from starlette.applications import Starlette

from subsvc.hookspecs import hookspec
from subsvc.panel import SubscriptionPanel

__all__ = ["addons_panel"]


@hookspec(firstresult=True)
def addons_panel(app: Starlette) -> SubscriptionPanel | None:
    """Return the panel account of a subscription (:class:`subsvc.panel.SubscriptionPanel`),
    or ``None`` while no panel is configured. The panel_sync plugin answers it: the account
    recorded for the subscription by its pushes, else the one of its name. Without an answer
    the device list is empty and the other direct operations answer 503."""
