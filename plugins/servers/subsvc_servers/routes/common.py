"""What both areas share: permissions, the server lookup that answers 404, the error texts."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import INT32_MAX, HTTPError
from subsvc.panel import RESPONSES as PANEL_RESPONSES
from subsvc_servers import service
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


@contextmanager
def rule_errors() -> Iterator[None]:
    """The rules' refusals as answers: unknown promo groups 400, a taken squad or a server
    in use 409."""
    try:
        yield
    except service.UnknownPromoGroups as exc:
        missing = ", ".join(str(group_id) for group_id in exc.args[0])
        raise HTTPError(400, f"Promo groups not found: {missing}") from None
    except service.SquadTaken as exc:
        raise HTTPError(409, f"Server with squad UUID {exc.args[0]} already exists") from None
    except service.ServerInUse as exc:
        raise HTTPError(409, str(exc)) from None
