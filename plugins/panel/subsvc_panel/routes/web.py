"""Web API (X-API-Key), tag `panel`: the VPN panel's status, statistics, nodes, squads,
inbounds and a user's traffic. The operations the cabinet serves too are declared once in
`operations.py` (`WEB` says how this area words them); the rest are below. The
synchronisation routes (`/panel/sync/...`) are the `panel_sync` plugin's."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import BigInt, Router
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
    NodeActionRequest,
    UserTrafficResponse,
    WebInboundsResponse,
    WebMigrationResponse,
    WebNodeActionResponse,
    WebOperationResponse,
    WebSquad,
    WebSquadCreateRequest,
    WebSquadListResponse,
    WebSquadUpdateRequest,
)

TAG = "panel"
router = Router(area="web", tag=TAG, prefix="/panel")
WEB = operations.PanelArea(
    router,
    text="detail",
    names={
        "nodes_realtime": "get_nodes_realtime_usage",
        "node_usage": "get_node_usage_range",
        "migrate": "migrate_squad",
        "migration_preview": "preview_squad_migration",
        "squad_action": "squad_actions",
    },
    paths={"restart_all_nodes": "/nodes/restart", "squad_action": "/squads/{squad_uuid}/actions"},
    squad_create=WebSquadCreateRequest,
    squad_update=WebSquadUpdateRequest,
    node_action_answer=WebNodeActionResponse,
    operation_answer=WebOperationResponse,
    migration_answer=WebMigrationResponse,
)
operations.declare(WEB)


@router.post(
    "/nodes/{node_uuid}/actions",
    response_model=WebNodeActionResponse,
    summary="Manage Node",
    permission=MANAGE,
    responses=NODE_RESPONSES,
)
async def manage_node(request: Request, node_uuid: str, payload: NodeActionRequest) -> WebNodeActionResponse:
    """Enable, disable or restart one node."""
    await service.node_action(panel(request), node_uuid, payload.action)
    return WebNodeActionResponse(success=True, detail=service.NODE_ACTION_DONE[payload.action])


@router.get(
    "/squads",
    response_model=WebSquadListResponse,
    summary="List Squads",
    permission=READ,
    responses=PANEL_FAILURES,
)
async def list_squads(request: Request) -> WebSquadListResponse:
    items = [WebSquad(**service.squad_fields(s)) for s in await panel(request).squads()]
    return WebSquadListResponse(items=items, total=len(items))


@router.get(
    "/squads/{squad_uuid}",
    response_model=WebSquad,
    summary="Get Squad Details",
    permission=READ,
    responses=SQUAD_RESPONSES,
)
async def get_squad_details(request: Request, squad_uuid: str) -> WebSquad:
    return WebSquad(**await service.squad(panel(request), squad_uuid))


@router.get(
    "/inbounds",
    response_model=WebInboundsResponse,
    summary="List Inbounds",
    permission=READ,
    responses=PANEL_FAILURES,
)
async def list_inbounds(request: Request) -> WebInboundsResponse:
    return WebInboundsResponse(items=await service.inbounds(panel(request)))


@router.get(
    "/users/{messenger_id}/traffic",
    response_model=UserTrafficResponse,
    summary="Get User Traffic",
    permission=READ,
    responses={404: local.USER_NOT_FOUND, **PANEL_FAILURES},
)
async def get_user_traffic(
    request: Request, session: AsyncSession, messenger_id: BigInt
) -> UserTrafficResponse:
    """The panel's traffic figures of the user with this messenger id."""
    return await local.user_traffic(session, panel(request), messenger_id)
