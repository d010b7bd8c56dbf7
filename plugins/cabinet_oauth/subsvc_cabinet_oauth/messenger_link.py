"""Who a messenger link request proves to be: init data, an OIDC ID token or login-widget
fields, checked with the cabinet_auth plugin's verifiers (same secrets, ages and one-time
rules as its logins)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_cabinet_auth.api import (
    LEEWAY_SECONDS,
    CabinetAuthSettings,
    MessengerIdentity,
    OIDCNotConfigured,
    OIDCTokenError,
    ProviderUnavailable,
    SignatureError,
    identity_from_init_data,
    use_once,
    verify_init_data,
    verify_widget,
)

from subsvc.services import services
from subsvc_cabinet_oauth.errors import FlowError
from subsvc_cabinet_oauth.schemas import LinkMessengerRequest

INIT_DATA_INVALID = "Invalid or expired messenger initData"
WIDGET_INVALID = "Invalid or expired messenger Login Widget data"
WIDGET_USED = "This messenger authorization has already been used."
OIDC_INVALID = "Invalid or expired messenger OIDC token"
OIDC_OFF = "Messenger OIDC is not configured"
OIDC_UNAVAILABLE = "The messenger's identity provider is unavailable"
BOT_NOT_CONFIGURED = "Bot not configured"
MESSENGER_ID_MAX = 2**63 - 1


def _bot_token(request: Request) -> str:
    token: str | None = services(request.app).settings.BOT_TOKEN
    if not token:
        raise FlowError(503, BOT_NOT_CONFIGURED)
    return token


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


async def verified_identity(
    request: Request, session: AsyncSession, body: LinkMessengerRequest
) -> MessengerIdentity:
    """The messenger account the request proves; :class:`FlowError` when it proves none."""
    settings: CabinetAuthSettings = CabinetAuthSettings.of(request.app)
    if body.init_data is not None:
        try:
            fields = verify_init_data(
                body.init_data,
                _bot_token(request),
                max_age=settings.CABINET_INIT_DATA_MAX_AGE_SECONDS,
                future_skew=settings.CABINET_AUTH_FUTURE_SKEW_SECONDS,
            )
            return identity_from_init_data(fields)
        except SignatureError:
            raise FlowError(400, INIT_DATA_INVALID) from None
    if body.id_token is not None:
        return await _oidc_identity(request, session, body.id_token)
    return await _widget_identity(request, session, body, settings)


async def _oidc_identity(request: Request, session: AsyncSession, id_token: str) -> MessengerIdentity:
    try:
        claims = await request.app.state.messenger_jwks.verify(id_token)
    except OIDCNotConfigured:
        raise FlowError(400, OIDC_OFF) from None
    except ProviderUnavailable:
        raise FlowError(503, OIDC_UNAVAILABLE) from None
    except OIDCTokenError:
        raise FlowError(401, OIDC_INVALID) from None
    try:
        messenger_id = int(claims.get("id", claims["sub"]))
    except (KeyError, TypeError, ValueError):
        raise FlowError(401, OIDC_INVALID) from None
    if not 0 < messenger_id <= MESSENGER_ID_MAX:
        raise FlowError(401, OIDC_INVALID)
    forgotten_at = datetime.fromtimestamp(float(claims["exp"]) + LEEWAY_SECONDS, UTC)
    if not await use_once(session, "oidc", id_token, forgotten_at):
        raise FlowError(401, OIDC_INVALID)
    return MessengerIdentity(
        messenger_id=messenger_id,
        username=_text(claims.get("preferred_username")),
        first_name=_text(claims.get("given_name")) or _text(claims.get("name")),
        last_name=_text(claims.get("family_name")),
    )


async def _widget_identity(
    request: Request, session: AsyncSession, body: LinkMessengerRequest, settings: CabinetAuthSettings
) -> MessengerIdentity:
    assert body.id is not None and body.auth_date is not None and body.hash is not None
    signed = body.model_dump(include={"id", "first_name", "last_name", "username", "photo_url", "auth_date"})
    signed = {key: value for key, value in signed.items() if value is not None}
    max_age = settings.CABINET_WIDGET_MAX_AGE_SECONDS
    try:
        verify_widget(
            signed,
            body.hash,
            _bot_token(request),
            max_age=max_age,
            future_skew=settings.CABINET_AUTH_FUTURE_SKEW_SECONDS,
        )
    except SignatureError:
        raise FlowError(400, WIDGET_INVALID) from None
    if not 0 < body.id <= MESSENGER_ID_MAX:
        raise FlowError(400, WIDGET_INVALID)
    forgotten_at = datetime.fromtimestamp(body.auth_date, UTC) + timedelta(seconds=max_age)
    if not await use_once(session, "widget", body.hash.lower(), forgotten_at):
        raise FlowError(400, WIDGET_USED)
    return MessengerIdentity(
        messenger_id=body.id, username=body.username, first_name=body.first_name, last_name=body.last_name
    )
