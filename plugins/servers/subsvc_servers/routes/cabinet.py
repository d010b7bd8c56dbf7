"""Cabinet administrators (access JWT with `servers:read` / `servers:edit`), tag
`Cabinet Admin Servers`: list, detail, update, availability and trial toggles, statistics
and the sync with the VPN panel."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router
from subsvc.db import utcnow
from subsvc_servers import queries, service, views
from subsvc_servers.models import Server
from subsvc_servers.routes.common import (
    EDIT,
    READ,
    RESPONSES_CHANGE,
    RESPONSES_ONE,
    get_server,
    sync_servers,
)
from subsvc_servers.schemas import (
    CabinetServerListResponse,
    CabinetServerSyncResponse,
    CabinetServerUpdateRequest,
    ServerDetailResponse,
    ServerStatsResponse,
    ServerToggleResponse,
    ServerTrialToggleResponse,
)

TAG = "Cabinet Admin Servers"
router = Router(area="cabinet-admin", tag=TAG, prefix="/cabinet/admin/servers")


async def _detail(request: Request, session: AsyncSession, server: Server) -> ServerDetailResponse:
    assert server.id is not None
    selected = await service.promo_groups_of(session, [server.id])
    counts = await queries.squad_counts(session, server.squad_uuid)
    return views.detail(
        server,
        await service.all_promo_groups(session),
        selected.get(server.id, []),
        counts.active,
        await service.tariffs_using(request.app, session, server.squad_uuid),
    )


@router.get("", permission=READ)
async def list_servers(session: AsyncSession, include_unavailable: bool = True) -> CabinetServerListResponse:
    """Get list of all servers (by sort order, then id); `include_unavailable=false` keeps
    the available ones."""
    servers, total = await service.list_servers(session, only_available=not include_unavailable)
    return CabinetServerListResponse(servers=[views.list_item(s) for s in servers], total=total)


router.mount(
    sync_servers,
    response_model=CabinetServerSyncResponse,
    description="Sync servers with the VPN panel: new squads become unavailable servers, known ones\n"
    "take the panel's name as `original_name`, vanished ones are removed. 503 without a panel.",
)


@router.get("/{server_id}", summary="Get Server", permission=READ, responses=RESPONSES_ONE)
async def get_server_detail(request: Request, session: AsyncSession, server_id: int) -> ServerDetailResponse:
    """Get detailed server info: every promo group (those that may buy it selected), its
    live paid subscriptions and the tariffs that offer it."""
    return await _detail(request, session, await get_server(session, server_id))


@router.put("/{server_id}", permission=EDIT, responses=RESPONSES_CHANGE)
async def update_existing_server(
    request: Request, session: AsyncSession, server_id: int, payload: CabinetServerUpdateRequest
) -> ServerDetailResponse:
    """Update an existing server: null fields stay as they are, `max_users` 0 removes the
    limit, a `promo_group_ids` list replaces its promo groups (empty: every group)."""
    server = await get_server(session, server_id, for_update=True)
    changes = payload.model_dump(exclude={"promo_group_ids"}, exclude_none=True)
    await service.update_server(session, server, changes, payload.promo_group_ids)
    return await _detail(request, session, server)


async def _flip(session: AsyncSession, server_id: int, flag: str) -> Server:
    """Turn a boolean field of the server over (under its row lock)."""
    server = await get_server(session, server_id, for_update=True)
    setattr(server, flag, not getattr(server, flag))
    server.updated_at = utcnow()
    session.add(server)
    return server


@router.post("/{server_id}/toggle", permission=EDIT, responses=RESPONSES_ONE)
async def toggle_server(session: AsyncSession, server_id: int) -> ServerToggleResponse:
    """Toggle server availability."""
    server = await _flip(session, server_id, "is_available")
    message = "Server enabled" if server.is_available else "Server disabled"
    return ServerToggleResponse(id=server_id, is_available=server.is_available, message=message)


@router.post("/{server_id}/trial", permission=EDIT, responses=RESPONSES_ONE)
async def toggle_server_trial(session: AsyncSession, server_id: int) -> ServerTrialToggleResponse:
    """Toggle server trial eligibility."""
    server = await _flip(session, server_id, "is_trial_eligible")
    message = "Trial enabled for server" if server.is_trial_eligible else "Trial disabled for server"
    return ServerTrialToggleResponse(
        id=server_id, is_trial_eligible=server.is_trial_eligible, message=message
    )


@router.get("/{server_id}/stats", permission=READ, responses=RESPONSES_ONE)
async def get_server_stats(session: AsyncSession, server_id: int) -> ServerStatsResponse:
    """Get server statistics: live paid and trial subscriptions on its squad; `usage_percent`
    is current users over max users (null without a limit)."""
    server = await get_server(session, server_id)
    counts = await queries.squad_counts(session, server.squad_uuid)
    usage = round(server.current_users / server.max_users * 100, 1) if server.max_users else None
    return ServerStatsResponse.model_validate(
        {
            **server.model_dump(),
            "active_subscriptions": counts.active,
            "trial_subscriptions": counts.trial,
            "usage_percent": usage,
        }
    )
