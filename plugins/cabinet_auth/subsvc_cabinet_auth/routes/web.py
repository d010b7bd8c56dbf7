"""The bot's side of the deep-link login (Web API, ``X-API-Key``)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import Router
from subsvc.api.errors import HTTPError
from subsvc_cabinet_auth import deeplink
from subsvc_cabinet_auth.guard import NOT_ACTIVE, USER_NOT_FOUND
from subsvc_cabinet_auth.logins import user_by_messenger_id
from subsvc_cabinet_auth.schemas import DeepLinkConfirmRequest, DeepLinkConfirmResponse

router = Router(area="web", tag="cabinet-auth")


@router.post(
    "/auth/deeplink/confirm",
    responses={
        403: NOT_ACTIVE,
        404: USER_NOT_FOUND,
        409: deeplink.TAKEN,
        410: f"{deeplink.GONE}, or {deeplink.CONSUMED}",
    },
)
async def confirm_deep_link(session: AsyncSession, body: DeepLinkConfirmRequest) -> DeepLinkConfirmResponse:
    """The bot confirms a deep-link login token (``/start webauth_<token>``) for the messenger
    user who opened it; the cabinet's next poll then logs that user in. 404 unknown user,
    403 inactive user, 410 expired or used token, 409 a token another user confirmed."""
    user = await user_by_messenger_id(session, body.messenger_id)
    if user is None:
        raise HTTPError(404, USER_NOT_FOUND)
    if user.status != "active":
        raise HTTPError(403, NOT_ACTIVE)
    row = await deeplink.confirm(session, body.token, user)
    assert row.user_id is not None
    return DeepLinkConfirmResponse(status=row.status, user_id=row.user_id)
