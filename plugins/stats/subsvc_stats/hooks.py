"""The stats plugin's runtime hooks: its service starts and stops with the app."""

from __future__ import annotations

from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_stats.service import StatsService
from subsvc_stats.settings import StatsSettings


@hookimpl
def startup(app: Starlette) -> None:
    settings = StatsSettings.of(app)
    app.state.stats = StatsService(services(app).db, services(app).bus, settings.STATS_CACHE_SECONDS)


@hookimpl
async def shutdown(app: Starlette) -> None:
    stats: StatsService | None = getattr(app.state, "stats", None)
    if stats is not None:
        await stats.stop()
