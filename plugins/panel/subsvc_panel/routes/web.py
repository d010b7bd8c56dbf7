"""Web API (X-API-Key), tag `panel`: the VPN panel's status, statistics, nodes, squads,
inbounds and a user's traffic. The operations the cabinet serves too are declared once in
`operations.py` (with how this area words them) and mounted here; the rest are below. The
synchronisation routes (`/panel/sync/...`) are the `panel_sync` plugin's."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import BigInt, Router
from subsvc_panel import local, service
from subsvc_panel.routes import operations
from subsvc_panel.routes.common import (
    PANEL_FAILURES,
    READ,
    SQUAD_RESPONSES,
    panel,
)
from subsvc_panel.schemas import (
    UserTrafficResponse,
    WebSquad,
    WebSquadListResponse,
)

TAG = "panel"
router = Router(area="web", tag=TAG, prefix="/panel")
operations.mount(router, *operations.COMMON, operations.node_action)


@router.get("/squads", permission=READ, responses=PANEL_FAILURES)
async def list_squads(request: Request) -> WebSquadListResponse:
    items = [WebSquad(**service.squad_fields(s)) for s in await panel(request).squads()]
    return WebSquadListResponse(items=items, total=len(items))


@router.get("/squads/{squad_uuid}", permission=READ, responses=SQUAD_RESPONSES)
async def get_squad_details(request: Request, squad_uuid: str) -> WebSquad:
    return WebSquad(**await service.squad(panel(request), squad_uuid))


operations.mount(router, operations.list_inbounds)


@router.get(
    "/users/{messenger_id}/traffic", permission=READ, responses={404: local.USER_NOT_FOUND, **PANEL_FAILURES}
)
async def get_user_traffic(
    request: Request, session: AsyncSession, messenger_id: BigInt
) -> UserTrafficResponse:
    """The panel's traffic figures of the user with this messenger id."""
    return await local.user_traffic(session, panel(request), messenger_id)
