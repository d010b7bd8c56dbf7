"""What both areas share: permissions, the server lookup that answers 404, the error texts,
the sync with the VPN panel (an operation each area mounts with its own answer). The rules'
refusals are answered as ``plugin.py`` declares them."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import INT32_MAX, HTTPError, operation
from subsvc.panel import RESPONSES as PANEL_RESPONSES
from subsvc_servers import panel, service
from subsvc_servers.models import Server

READ = "servers:read"
EDIT = "servers:edit"
NOT_FOUND = "Server not found"
RESPONSES_ONE = {404: NOT_FOUND}
RESPONSES_CHANGE = {400: "Promo groups not found", 404: NOT_FOUND}
RESPONSES_SYNC = dict(PANEL_RESPONSES)


async def get_server(session: AsyncSession, server_id: int, *, for_update: bool = False) -> Server:
    """The server, or 404 ``Server not found`` (also for ids no row can have)."""
    if not 0 < server_id <= INT32_MAX:
        raise HTTPError(404, NOT_FOUND)
    try:
        return await service.get_server(session, server_id, for_update=for_update)
    except service.ServerNotFound:
        raise HTTPError(404, NOT_FOUND) from None


@operation("POST", "/sync", permission=EDIT, responses=RESPONSES_SYNC)
async def sync_servers(request: Request, session: AsyncSession) -> panel.SyncResult:
    """Create, update and remove servers so that they follow the VPN panel's squads (503
    without a panel); each area answers the figures it shows."""
    return await panel.sync_with_panel(request.app, session)
