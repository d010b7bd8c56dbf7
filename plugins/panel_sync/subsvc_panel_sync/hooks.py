"""The panel_sync plugin's start-up (subscription changes queued in their transaction, progress
sent to the cabinet administrators) and its implementation of the addons plugin's panel port."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session
from starlette.applications import Starlette
from subsvc_panel.api import client_of

from subsvc.events import Event
from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_panel_sync.progress import PROGRESS_EVENT
from subsvc_panel_sync.queue import PUSH_JOB, Pusher, record_changes


@hookimpl
def startup(app: Starlette) -> None:
    """Queue every subscription change with the change itself, and push the queue."""
    app.state.panel_sync_pusher = Pusher(app)
    jobs = services(app).jobs

    def queue(session: Session, events: list[Event]) -> None:
        if record_changes(session, events):
            jobs.enqueue_after_commit(session, PUSH_JOB)

    services(app).events.subscribe_in_transaction(queue)

    async def to_cabinet_admins(event: Event) -> None:
        await services(app).realtime.send_to_cabinet_admins({"type": PROGRESS_EVENT, **event.payload})

    services(app).events.subscribe(PROGRESS_EVENT, to_cabinet_admins)


@hookimpl(optionalhook=True)
def addons_panel(app: Starlette) -> Any:
    """The addons plugin's port: a subscription's panel account (``None`` without a
    configured panel: it answers 503 or an empty list)."""
    client = client_of(app)
    if not client.configured:
        return None
    from subsvc_panel_sync.gateway import SubscriptionGateway

    return SubscriptionGateway(client)
