"""Cabinet Admin (access JWT with `pinned_messages:*`), tag "Cabinet Admin Pinned Messages":
the Web API's operations; a message or run records the administrator who made it."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router
from subsvc.auth.principal import Principal
from subsvc_pinned_messages.routes import common
from subsvc_pinned_messages.routes.operations import create_endpoint, creator, declare
from subsvc_pinned_messages.schemas import CabinetPinnedMessageCreateRequest, PinnedMessageBroadcastResponse

router = Router(
    area="cabinet-admin", tag="Cabinet Admin Pinned Messages", prefix="/cabinet/admin/pinned-messages"
)


@create_endpoint(router)
async def create_pinned_message(
    request: Request, session: AsyncSession, principal: Principal, payload: CabinetPinnedMessageCreateRequest
) -> PinnedMessageBroadcastResponse:
    """Create the message and make it the active one; with `broadcast` (in the body), send and
    pin it in every reachable user's chat (a background job; `broadcast_id` names the run)."""
    return await common.create_message(request, session, payload, payload.broadcast, creator(principal))


declare(router)
endpoints = router.endpoints
