"""`/broadcasts` (Web API, tag `broadcasts`): create (now or at ``send_at``), history, stop."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Limit, Offset, Router
from subsvc.auth.principal import Principal
from subsvc_broadcasts.routes import common
from subsvc_broadcasts.schemas import BroadcastCreateRequest, BroadcastListResponse, BroadcastResponse

router = Router(area="web", tag="broadcasts", prefix="/broadcasts")


@common.create_endpoint(router)
async def create_broadcast(
    request: Request, session: AsyncSession, principal: Principal, payload: BroadcastCreateRequest
) -> BroadcastResponse:
    """A message to every user of ``target`` the bot can write to, sent in the background (or
    from ``send_at``); ``admin_name`` is the API token's name."""
    return await common.create(request, session, payload, None, principal.name or None)


@common.history_endpoint(router)
async def list_broadcasts(
    session: AsyncSession, limit: Limit = 50, offset: Offset = 0
) -> BroadcastListResponse:
    """Every broadcast, newest first, with its counts."""
    return await common.history_page(session, limit, offset)


router.mount(
    common.stop_broadcast,
    description="``cancelled`` at once when nothing is sending it, else ``cancelling`` until the sender\n"
    "stops (before its next batch); the counts are kept.",
)
