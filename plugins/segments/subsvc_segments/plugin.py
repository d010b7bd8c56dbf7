"""Plugin `segments`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from types import ModuleType

from pydantic_settings import BaseSettings
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_segments import __version__, hookspecs
from subsvc_segments.reachability import Reachability
from subsvc_segments.recipients import catalogue
from subsvc_segments.settings import SegmentSettings

PLUGIN_NAME = "segments"
REQUIRES = ("users", "subscriptions")

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_hookspecs() -> ModuleType:
    return hookspecs


@hookimpl
def register_settings() -> type[BaseSettings]:
    return SegmentSettings


@hookimpl
def startup(app: Starlette) -> None:
    """Listen to the messenger client's answers about users' chats, and know every segment."""
    settings: SegmentSettings = app.state.settings_of[PLUGIN_NAME]
    reachability = Reachability(app.state.db, settings.SEGMENTS_REACHABILITY_FLUSH_SECONDS)
    app.state.messenger.on_blocked(reachability.blocked)
    app.state.messenger.on_delivered(reachability.delivered)
    app.state.segments_reachability = reachability
    reachability.start()
    catalogue(app)


@hookimpl
async def shutdown(app: Starlette) -> None:
    await app.state.segments_reachability.stop()
