"""Cabinet administrators (access JWT with `panel:read` / `panel:manage`), tag
`Cabinet Admin Panel`: the VPN panel's status, statistics, nodes, squads and inbounds. The
operations the Web API serves too are declared once in `operations.py` (with how this area
words them) and mounted here; the rest are below. The synchronisation routes
(`/cabinet/admin/panel/sync/...`) are the `panel_sync` plugin's."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Query, Router
from subsvc_panel import insights, local, service
from subsvc_panel.routes import operations
from subsvc_panel.routes.common import (
    MANAGE,
    NODE_RESPONSES,
    PANEL_FAILURES,
    READ,
    SQUAD_RESPONSES,
    panel,
)
from subsvc_panel.schemas import (
    DevicesStatsResponse,
    GeocheckJobResponse,
    GeocheckRequest,
    GeocheckStartResponse,
    HealthResponse,
    NodesOverview,
    RecapResponse,
    SquadDetailResponse,
    SquadOperationResponse,
    SquadsListResponse,
    SubscriptionRequestStatsResponse,
    TopConsumersResponse,
)

TAG = "Cabinet Admin Panel"
router = Router(area="cabinet-admin", tag=TAG, prefix="/cabinet/admin/panel")
operations.mount(router, *operations.COMMON)


@router.get("/recap", permission=READ, responses=PANEL_FAILURES)
async def get_recap(request: Request) -> RecapResponse:
    """Panel recap: lifetime/this-month traffic, version, uptime, distinct countries."""
    return await insights.recap(panel(request))


@router.get("/devices-stats", permission=READ, responses=PANEL_FAILURES)
async def get_devices_stats(request: Request) -> DevicesStatsResponse:
    """HWID device statistics: breakdown by platform and app + totals."""
    return await insights.devices(panel(request))


@router.get("/top-consumers", permission=READ, responses=PANEL_FAILURES)
async def get_top_consumers_route(
    request: Request,
    days: Annotated[int, Query(ge=1, le=90)] = 7,
    limit: Annotated[int, Query(ge=1, le=50)] = 10,
) -> TopConsumersResponse:
    """Top traffic-consuming users aggregated across nodes for the last N days."""
    return await insights.top_consumers(panel(request), days, limit)


@router.get("/health", permission=READ, responses=PANEL_FAILURES)
async def get_health_route(request: Request) -> HealthResponse:
    """Panel process runtime health: RAM, event-loop p99 lag, uptime (all its processes: memory
    added up, the worst lag, the longest uptime)."""
    return await insights.health(panel(request))


@router.get("/subscription-requests", permission=READ, responses=PANEL_FAILURES)
async def get_subscription_requests_route(request: Request) -> SubscriptionRequestStatsResponse:
    """Subscription-link request stats by client app."""
    return SubscriptionRequestStatsResponse(by_app=await insights.subscription_requests(panel(request)))


@router.get("/nodes/overview", permission=READ, responses=PANEL_FAILURES)
async def get_nodes_overview(request: Request) -> NodesOverview:
    """Nodes counted: online (connected and enabled), offline, disabled; users online."""
    return await service.nodes_overview(panel(request))


operations.mount(router, operations.node_action)


@router.post("/nodes/{node_uuid}/geocheck", permission=MANAGE, responses=NODE_RESPONSES)
async def start_node_geocheck(
    request: Request, node_uuid: str, payload: GeocheckRequest
) -> GeocheckStartResponse:
    """Queue a GeoCheck on the node and return its job id: the panel runs it in the
    background (`GET /geocheck/{job_id}` tells how it went); `ip` and `interface` are optional."""
    job_id = await insights.start_geocheck(panel(request), node_uuid, payload.ip, payload.interface)
    return GeocheckStartResponse(job_id=job_id)


@router.get("/geocheck/{job_id}", permission=READ, responses={404: insights.JOB_NOT_FOUND, **PANEL_FAILURES})
async def get_node_geocheck(request: Request, job_id: str) -> GeocheckJobResponse:
    """Poll a GeoCheck job: the node may take up to a minute to answer (until then it is
    neither completed nor failed)."""
    return await insights.geocheck(panel(request), job_id)


@router.get("/squads", permission=READ, responses=PANEL_FAILURES)
async def list_squads(request: Request, session: AsyncSession) -> SquadsListResponse:
    """The panel's squads, with what the servers plugin keeps about each (`is_synced`)."""
    items = await local.squads_with_local_info(session, panel(request))
    return SquadsListResponse(items=items, total=len(items))


@router.get("/squads/{squad_uuid}", permission=READ, responses=SQUAD_RESPONSES)
async def get_squad_details(request: Request, session: AsyncSession, squad_uuid: str) -> SquadDetailResponse:
    return await local.squad_detail(session, panel(request), squad_uuid)


@router.delete("/squads/{squad_uuid}", permission=MANAGE, responses=SQUAD_RESPONSES)
async def delete_squad(request: Request, squad_uuid: str) -> SquadOperationResponse:
    await service.delete_squad(panel(request), squad_uuid)
    return SquadOperationResponse(success=True, message="Squad deleted")


operations.mount(router, operations.list_inbounds)
