"""Who a messenger link request proves to be: init data, an OIDC ID token or login-widget
fields, checked by the cabinet_auth plugin's identities (same secrets, ages and one-time
rules as its logins); only the answers to a refusal are this plugin's."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_cabinet_auth.api import (
    CredentialRefused,
    MessengerIdentity,
    Reason,
    init_data_identity,
    oidc_identity,
    widget_identity,
)

from subsvc_cabinet_oauth.errors import FlowError
from subsvc_cabinet_oauth.schemas import LinkMessengerRequest

INIT_DATA_INVALID = "Invalid or expired messenger initData"
WIDGET_INVALID = "Invalid or expired messenger Login Widget data"
WIDGET_USED = "This messenger authorization has already been used."
OIDC_INVALID = "Invalid or expired messenger OIDC token"
OIDC_OFF = "Messenger OIDC is not configured"
OIDC_UNAVAILABLE = "The messenger's identity provider is unavailable"
BOT_NOT_CONFIGURED = "Bot not configured"

Answer = tuple[int, str]
# how a refused credential is answered, per kind: the kind's answer, else by reason
_REFUSALS: dict[str, tuple[Answer, dict[Reason, Answer]]] = {
    "init_data": ((400, INIT_DATA_INVALID), {}),
    "widget": ((400, WIDGET_INVALID), {"replayed": (400, WIDGET_USED)}),
    "oidc": (
        (401, OIDC_INVALID),
        {"not_configured": (400, OIDC_OFF), "unavailable": (503, OIDC_UNAVAILABLE)},
    ),
}
_WIDGET_SIGNED = {"id", "first_name", "last_name", "username", "photo_url", "auth_date"}


async def verified_identity(
    request: Request, session: AsyncSession, body: LinkMessengerRequest
) -> MessengerIdentity:
    """The messenger account the request proves; :class:`FlowError` when it proves none."""
    kind = "init_data" if body.init_data is not None else "oidc" if body.id_token is not None else "widget"
    try:
        if body.init_data is not None:
            return init_data_identity(request.app, body.init_data)
        if body.id_token is not None:
            return await oidc_identity(request.app, session, body.id_token)
        assert body.hash is not None
        signed = body.model_dump(include=_WIDGET_SIGNED, exclude_none=True)
        return await widget_identity(request.app, session, signed, body.hash)
    except CredentialRefused as refused:
        if refused.reason == "no_bot_token":
            raise FlowError(503, BOT_NOT_CONFIGURED) from None
        answer, by_reason = _REFUSALS[kind]
        raise FlowError(*by_reason.get(refused.reason, answer)) from None
