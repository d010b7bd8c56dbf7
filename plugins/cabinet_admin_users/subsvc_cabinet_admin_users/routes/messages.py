"""``POST /{user_id}/send-message``: a message to the user through the bot, sent by a job
(permission ``users:edit``); see :mod:`subsvc_cabinet_admin_users.messages`."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError
from subsvc.auth.principal import Principal
from subsvc.services import services
from subsvc_cabinet_admin_users import messages
from subsvc_cabinet_admin_users.routes.common import EDIT, USER_NOT_FOUND, get_user, new_router
from subsvc_cabinet_admin_users.schemas import SendUserMessageRequest, SendUserMessageResponse

router = new_router()

NO_MESSENGER_ID = "User has no messenger account (registered by e-mail only); the bot cannot message them"
MESSENGER_NOT_CONFIGURED = "Messenger bot is not configured"


@router.post(
    "/{user_id}/send-message",
    permission=EDIT,
    responses={400: NO_MESSENGER_ID, 404: USER_NOT_FOUND, 503: MESSENGER_NOT_CONFIGURED},
)
async def send_user_message(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    user_id: int,
    payload: SendUserMessageRequest,
) -> SendUserMessageResponse:
    """Queue a message (HTML) to the user through the bot; a job sends it. A user who blocked
    the bot is recorded as such (not retried); a rate limit or an unreachable messenger is
    retried a few times (`ADMIN_USER_MESSAGE_ATTEMPTS`). An e-mail-only user is 400."""
    user = await get_user(session, user_id)
    if user.messenger_id is None:
        raise HTTPError(400, NO_MESSENGER_ID)
    if not services(request.app).messenger.configured:
        raise HTTPError(503, MESSENGER_NOT_CONFIGURED)
    assert user.id is not None
    messages.queue(request.app, session, user.id, user.messenger_id, payload.text, principal.id)
    return SendUserMessageResponse(success=True, message="Message queued for sending")
