"""Cabinet administrators (access JWT with `panel:read` / `panel:manage`), tag
`Cabinet Admin Panel`: the VPN panel's status, statistics, nodes, squads and inbounds. The
operations the Web API serves too are declared once in `operations.py` (`CABINET` says how
this area words them); the rest are below. The synchronisation routes
(`/cabinet/admin/panel/sync/...`) are the `panel_sync` plugin's."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router
from subsvc_panel import local, service
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
    InboundsListResponse,
    MigrationResponse,
    NodeActionRequest,
    NodeActionResponse,
    NodesOverview,
    SquadCreateRequest,
    SquadDetailResponse,
    SquadOperationResponse,
    SquadsListResponse,
    SquadUpdateRequest,
)

TAG = "Cabinet Admin Panel"
router = Router(area="cabinet-admin", tag=TAG, prefix="/cabinet/admin/panel")
SYSTEM_DESCRIPTION = (
    "The panel's system statistics, fetched live: 503 without a panel, 502 when it does\n"
    "not answer; a part that fails alone is zero or empty."
)
CABINET = operations.PanelArea(
    router,
    text="message",
    names={
        "nodes_realtime": "get_nodes_realtime",
        "node_usage": "get_node_usage",
        "migrate": "migrate_squad_users",
        "migration_preview": "preview_migration",
        "squad_action": "perform_squad_action",
    },
    paths={"restart_all_nodes": "/nodes/restart-all", "squad_action": "/squads/{squad_uuid}/action"},
    squad_create=SquadCreateRequest,
    squad_update=SquadUpdateRequest,
    node_action_answer=NodeActionResponse,
    operation_answer=SquadOperationResponse,
    migration_answer=MigrationResponse,
    descriptions={"get_system_statistics": SYSTEM_DESCRIPTION},
)
operations.declare(CABINET)


@router.get(
    "/nodes/overview",
    response_model=NodesOverview,
    summary="Get Nodes Overview",
    permission=READ,
    responses=PANEL_FAILURES,
)
async def get_nodes_overview(request: Request) -> NodesOverview:
    """Nodes counted: online (connected and enabled), offline, disabled; users online."""
    return await service.nodes_overview(panel(request))


@router.post(
    "/nodes/{node_uuid}/action",
    response_model=NodeActionResponse,
    summary="Perform Node Action",
    permission=MANAGE,
    responses=NODE_RESPONSES,
)
async def perform_node_action(
    request: Request, node_uuid: str, payload: NodeActionRequest
) -> NodeActionResponse:
    """Enable, disable or restart one node; `is_disabled` as the panel answers after it."""
    node = await service.node_action(panel(request), node_uuid, payload.action)
    return NodeActionResponse(
        success=True, message=service.NODE_ACTION_DONE[payload.action], is_disabled=node.is_disabled
    )


@router.get(
    "/squads",
    response_model=SquadsListResponse,
    summary="List Squads",
    permission=READ,
    responses=PANEL_FAILURES,
)
async def list_squads(request: Request, session: AsyncSession) -> SquadsListResponse:
    """The panel's squads, with what the servers plugin keeps about each (`is_synced`)."""
    items = await local.squads_with_local_info(session, panel(request))
    return SquadsListResponse(items=items, total=len(items))


@router.get(
    "/squads/{squad_uuid}",
    response_model=SquadDetailResponse,
    summary="Get Squad Details",
    permission=READ,
    responses=SQUAD_RESPONSES,
)
async def get_squad_details(request: Request, session: AsyncSession, squad_uuid: str) -> SquadDetailResponse:
    return await local.squad_detail(session, panel(request), squad_uuid)


@router.delete(
    "/squads/{squad_uuid}",
    response_model=SquadOperationResponse,
    summary="Delete Squad",
    permission=MANAGE,
    responses=SQUAD_RESPONSES,
)
async def delete_squad(request: Request, squad_uuid: str) -> SquadOperationResponse:
    await service.delete_squad(panel(request), squad_uuid)
    return SquadOperationResponse(success=True, message="Squad deleted")


@router.get(
    "/inbounds",
    response_model=InboundsListResponse,
    summary="List Inbounds",
    permission=READ,
    responses=PANEL_FAILURES,
)
async def list_inbounds(request: Request) -> InboundsListResponse:
    items = await service.inbounds(panel(request))
    return InboundsListResponse(items=items, total=len(items))
