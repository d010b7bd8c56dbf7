"""Cabinet administrators (access JWT with `panel:read` / `panel:manage`), tag
`Cabinet Admin Panel`: the VPN panel's status, statistics, nodes, squads and inbounds. The
operations the Web API serves too are declared once in `operations.py` (with how this area
words them) and mounted here; the rest are below. The synchronisation routes
(`/cabinet/admin/panel/sync/...`) are the `panel_sync` plugin's."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router
from subsvc_panel import local, service
from subsvc_panel.routes import operations
from subsvc_panel.routes.common import (
    MANAGE,
    PANEL_FAILURES,
    READ,
    SQUAD_RESPONSES,
    panel,
)
from subsvc_panel.schemas import (
    NodesOverview,
    SquadDetailResponse,
    SquadOperationResponse,
    SquadsListResponse,
)

TAG = "Cabinet Admin Panel"
router = Router(area="cabinet-admin", tag=TAG, prefix="/cabinet/admin/panel")
operations.mount(router, *operations.COMMON)


@router.get("/nodes/overview", permission=READ, responses=PANEL_FAILURES)
async def get_nodes_overview(request: Request) -> NodesOverview:
    """Nodes counted: online (connected and enabled), offline, disabled; users online."""
    return await service.nodes_overview(panel(request))


operations.mount(router, operations.node_action)


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
