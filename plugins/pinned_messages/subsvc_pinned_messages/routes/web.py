"""Web API (X-API-Key), tag `pinned-messages`."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router
from subsvc_pinned_messages.routes import common
from subsvc_pinned_messages.routes.operations import Broadcast, create_endpoint, declare
from subsvc_pinned_messages.schemas import PinnedMessageBroadcastResponse, PinnedMessageCreateRequest

router = Router(area="web", tag="pinned-messages", prefix="/pinned-messages")


@create_endpoint(router)
async def create_pinned_message(
    request: Request, session: AsyncSession, payload: PinnedMessageCreateRequest, broadcast: Broadcast = False
) -> PinnedMessageBroadcastResponse:
    """Create the message and make it the active one (the one active before is deactivated).
    With `broadcast`, it is sent and pinned in every reachable user's chat by a background job:
    the answer's counts are 0 and `broadcast_id` names the run
    (`GET /pinned-messages/broadcasts/{broadcast_id}` reports its progress)."""
    return await common.create_message(request, session, payload, broadcast, None)


declare(router)
endpoints = router.endpoints
