"""The broadcasts' runtime hook: the sender's identity, and progress to cabinet admins' sockets."""

from __future__ import annotations

from starlette.applications import Starlette

from subsvc.events import Event
from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_broadcasts.sender import state_of
from subsvc_broadcasts.service import PROGRESS_EVENT


@hookimpl
async def startup(app: Starlette) -> None:
    """This process's sender identity; progress events also go to administrators' cabinet sockets."""
    state_of(app)

    async def to_cabinet_admins(event: Event) -> None:
        await services(app).realtime.send_to_cabinet_admins({"type": PROGRESS_EVENT, **event.payload})

    services(app).events.subscribe(PROGRESS_EVENT, to_cabinet_admins)
