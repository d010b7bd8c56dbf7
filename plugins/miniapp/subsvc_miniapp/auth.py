"""Who a mini app request comes from: its signed init data (the messenger login's check,
``subsvc_cabinet_auth.api.init_data_identity``), then the user of that messenger id.

The mini app does not register users: an unknown one is 404; a blocked or deleted one 403.
Refusals answer in one of two styles (README: Rules): ``text`` (``{"detail": "..."}``, the
reference's older operations) or ``object`` (``{"detail": {"code", "message"}}``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_cabinet_auth.api import CredentialRefused, MessengerIdentity, init_data_identity
from subsvc_users.api import User, UserStatus, find_user_by_messenger_id

from subsvc.api import HTTPError
from subsvc_miniapp.settings import MiniAppSettings

Style = Literal["text", "object"]


@dataclass(frozen=True)
class Refusal:
    """A refusal of the mini app: its status, ``code`` (object style) and text."""

    status: int
    code: str
    message: str

    def error(self, style: Style) -> HTTPError:
        detail = self.message if style == "text" else {"code": self.code, "message": self.message}
        return HTTPError(self.status, detail)


MISSING = Refusal(401, "unauthorized", "Missing initData")
INVALID = Refusal(401, "unauthorized", "Invalid init data signature")
TOO_OLD = Refusal(401, "unauthorized", "Init data is too old")
INVALID_USER = Refusal(400, "invalid_user", "Invalid Messenger user payload")
USER_NOT_FOUND = Refusal(404, "user_not_found", "User not found")
BLOCKED = Refusal(403, "account_blocked", "Account is blocked or deleted")
NO_BOT = Refusal(503, "bot_not_configured", "Bot not configured")

_BY_REASON = {"expired": TOO_OLD, "missing_id": INVALID_USER, "no_bot_token": NO_BOT}

#: What an operation that checks the init data may answer besides its own refusals.
SIGNATURE_RESPONSES: dict[int, str] = {
    401: f"`{MISSING.message}`, `{INVALID.message}` or `{TOO_OLD.message}`",
    400: INVALID_USER.message + " (the init data names no user)",
    503: NO_BOT.message + " (`BOT_TOKEN` unset)",
}
#: ... and one that needs the user besides.
USER_RESPONSES: dict[int, str] = {
    **SIGNATURE_RESPONSES,
    404: USER_NOT_FOUND.message + " (the mini app does not register users)",
    403: BLOCKED.message,
}


def identity(app: Starlette, init_data: str, style: Style = "object") -> MessengerIdentity:
    """The messenger user that ``init_data`` proves, or the refusal as an :class:`HTTPError`."""
    if not init_data.strip():
        raise MISSING.error(style)
    try:
        return init_data_identity(
            app, init_data, max_age=MiniAppSettings.of(app).MINIAPP_INIT_DATA_MAX_AGE_SECONDS
        )
    except CredentialRefused as refused:
        raise _BY_REASON.get(refused.reason, INVALID).error(style) from None


async def user_of(app: Starlette, session: AsyncSession, init_data: str, style: Style = "object") -> User:
    """The active user of the messenger id ``init_data`` proves (404 unknown, 403 blocked)."""
    found = await find_user_by_messenger_id(session, identity(app, init_data, style).messenger_id)
    if found is None:
        raise USER_NOT_FOUND.error(style)
    if found.status != UserStatus.ACTIVE:
        raise BLOCKED.error(style)
    return found
