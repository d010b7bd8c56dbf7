"""Start-up: the in-transaction recorder and the live pushes."""

from __future__ import annotations

from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_ticket_notifications import pushes
from subsvc_ticket_notifications.recording import recorder


@hookimpl
def startup(app: Starlette) -> None:
    """Record each ticket event's notifications with it, and push them after the commit."""
    services(app).events.subscribe_in_transaction(recorder(app))
    pushes.subscribe(app)
