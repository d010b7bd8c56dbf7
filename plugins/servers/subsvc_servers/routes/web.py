"""Web API (X-API-Key), tag `servers`: the catalogue of servers, its statistics, connected
users, the counters and the sync with the VPN panel."""

from __future__ import annotations

from typing import Annotated, Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Query, Router
from subsvc_servers import queries, service, views
from subsvc_servers.routes.common import (
    EDIT,
    READ,
    RESPONSES_CHANGE,
    RESPONSES_ONE,
    get_server,
    sync_servers,
)
from subsvc_servers.schemas import (
    ServerConnectedUsersResponse,
    ServerCountsSyncResponse,
    ServerCreateRequest,
    ServerDeleteResponse,
    ServerListResponse,
    ServerResponse,
    ServerStatisticsResponse,
    ServerSyncResponse,
    ServerUpdateRequest,
)

router = Router(area="web", tag="servers")

# Fields a client may clear with an explicit null; the others ignore null.
NULLABLE = {"original_name", "country_code", "description", "max_users"}


async def _record(session: AsyncSession, server: Any) -> ServerResponse:
    groups = await service.promo_groups_of(session, [server.id])
    return views.web_server(server, groups.get(server.id, []))


@router.get("/servers", permission=READ)
async def list_servers(
    session: AsyncSession,
    page: Annotated[int, Query(ge=1)] = 1,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    available: bool = False,
    search: str | None = None,
) -> ServerListResponse:
    """Servers by `sortOrder`, then id; `available=true` keeps the available ones; `search`
    looks into the names, the squad UUID and the country code."""
    servers, total = await service.list_servers(
        session, only_available=available, search=search, limit=limit, offset=(page - 1) * limit
    )
    groups = await service.promo_groups_of(session, [s.id for s in servers if s.id is not None])
    items = [views.web_server(s, groups.get(s.id, []) if s.id is not None else []) for s in servers]
    return ServerListResponse(items=items, total=total, page=page, limit=limit)


@router.post(
    "/servers",
    status_code=201,
    summary="Create Server Endpoint",
    permission=EDIT,
    responses={400: "Promo groups not found", 409: "Server with this squad UUID already exists"},
)
async def create_server(session: AsyncSession, payload: ServerCreateRequest) -> ServerResponse:
    """Add a server for a panel squad; the squad UUID must be new (409 otherwise)."""
    fields = payload.model_dump(exclude={"promo_group_ids"})
    server = await service.create_server(session, fields, payload.promo_group_ids)
    return await _record(session, server)


@router.get("/servers/stats", permission=READ)
async def get_servers_statistics(session: AsyncSession) -> ServerStatisticsResponse:
    """Totals over every server. Revenue is each server's price times its current users
    (what the servers earn per period at their list prices)."""
    stats = await service.statistics(session)
    return ServerStatisticsResponse(
        total_servers=stats.total,
        available_servers=stats.available,
        unavailable_servers=stats.total - stats.available,
        servers_with_connections=stats.with_connections,
        total_revenue_kopeks=stats.revenue_kopeks,
    )


router.mount(
    sync_servers,
    path="/servers/sync",
    name="sync_servers_with_panel",
    response_model=ServerSyncResponse,
    description="Create, update and remove servers so that they follow the VPN panel's squads; 503\n"
    "while no panel is configured.",
)


@router.post("/servers/sync-counts", permission=EDIT)
async def sync_server_counts(session: AsyncSession) -> ServerCountsSyncResponse:
    """Recompute every server's `currentUsers` (users with a live subscription on its
    squad); answers how many counters changed."""
    return ServerCountsSyncResponse(updated=await queries.recount(session))


@router.get("/servers/{server_id}", permission=READ, responses=RESPONSES_ONE)
async def get_server_endpoint(session: AsyncSession, server_id: int) -> ServerResponse:
    return await _record(session, await get_server(session, server_id))


@router.patch("/servers/{server_id}", permission=EDIT, responses=RESPONSES_CHANGE)
async def update_server_endpoint(
    session: AsyncSession, server_id: int, payload: ServerUpdateRequest
) -> ServerResponse:
    """Change the fields sent. An explicit null clears `originalName`, `countryCode`,
    `description` and `maxUsers` (0 also means no limit); a `promoGroupIds` list replaces
    the server's promo groups."""
    server = await get_server(session, server_id, for_update=True)
    sent = payload.model_dump(include=payload.model_fields_set - {"promo_group_ids"})
    changes = {name: value for name, value in sent.items() if value is not None or name in NULLABLE}
    await service.update_server(session, server, changes, payload.promo_group_ids)
    return await _record(session, server)


@router.delete(
    "/servers/{server_id}",
    permission=EDIT,
    responses={404: "Server not found", 409: "Live subscriptions or tariffs use the server"},
)
async def delete_server_endpoint(
    request: Request, session: AsyncSession, server_id: int
) -> ServerDeleteResponse:
    """Delete the server; 409 while live subscriptions connect to its squad or a tariff offers it."""
    server = await get_server(session, server_id, for_update=True)
    await service.delete_server(request.app, session, server)
    return ServerDeleteResponse(success=True, message="Server deleted")


@router.get("/servers/{server_id}/users", permission=READ, responses=RESPONSES_ONE)
async def get_server_connected_users_endpoint(
    session: AsyncSession,
    server_id: int,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> ServerConnectedUsersResponse:
    """The users with a subscription (any status) connected to the server's squad, by user
    id; each with the newest such subscription."""
    server = await get_server(session, server_id)
    rows, total = await queries.connected_users(session, server.squad_uuid, limit, offset)
    return ServerConnectedUsersResponse(
        items=[views.connected_user(row) for row in rows], total=total, limit=limit, offset=offset
    )
