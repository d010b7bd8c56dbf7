"""Runtime hooks of the segments plugin: the messenger's answers about users' chats are heard
while the app runs."""

from __future__ import annotations

from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_segments.reachability import Reachability
from subsvc_segments.recipients import catalogue
from subsvc_segments.settings import SegmentSettings


@hookimpl
def startup(app: Starlette) -> None:
    """Listen to the messenger client's answers about users' chats, and know every segment."""
    settings = SegmentSettings.of(app)
    reachability = Reachability(services(app).db, settings.SEGMENTS_REACHABILITY_FLUSH_SECONDS)
    services(app).messenger.on_blocked(reachability.blocked)
    services(app).messenger.on_delivered(reachability.delivered)
    app.state.segments_reachability = reachability
    reachability.start()
    catalogue(app)


@hookimpl
async def shutdown(app: Starlette) -> None:
    await app.state.segments_reachability.stop()
