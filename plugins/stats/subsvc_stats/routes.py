"""`/stats` (Web API, tag `stats`)."""

from __future__ import annotations

from starlette.requests import Request

from subsvc.api import Router
from subsvc_stats.schemas import FullStats, OverviewStats
from subsvc_stats.service import StatsService

router = Router(area="web", tag="stats")


def _stats(request: Request) -> StatsService:
    service: StatsService = request.app.state.stats
    return service


@router.get("/stats/overview", summary="Общая статистика")
async def stats_overview(request: Request) -> OverviewStats:
    """Users, subscriptions, support and today's payments at a glance (cached for
    ``STATS_CACHE_SECONDS``)."""
    return await _stats(request).overview.get()


@router.get("/stats/full", summary="Полная статистика")
async def stats_full(request: Request) -> FullStats:
    """The overview plus detail per area (cached for ``STATS_CACHE_SECONDS``)."""
    return await _stats(request).full.get()
