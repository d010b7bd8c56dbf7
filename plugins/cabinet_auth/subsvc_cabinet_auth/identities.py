"""Who a messenger credential proves to be: init data, login-widget fields or an OIDC ID token,
checked with the configured secrets and ages, one-time credentials recorded as used.

Logins (this plugin) and account linking (the OAuth plugin) both start here and differ only
in how they answer a refusal: :class:`CredentialRefused` carries a ``reason`` each maps to
its own status and text.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.services import services
from subsvc_cabinet_auth import replay
from subsvc_cabinet_auth.messenger import (
    MessengerIdentity,
    MissingIdentity,
    SignatureError,
    TooOld,
    identity_from_init_data,
    verify_init_data,
    verify_widget,
)
from subsvc_cabinet_auth.oidc import (
    LEEWAY_SECONDS,
    JWKSCache,
    OIDCNotConfigured,
    OIDCTokenError,
    ProviderUnavailable,
)
from subsvc_cabinet_auth.settings import CabinetAuthSettings

Reason = Literal[
    "invalid", "expired", "missing_id", "replayed", "no_bot_token", "not_configured", "unavailable"
]
MESSENGER_ID_MAX = 2**63 - 1
REPLAY_MEMORY_MAX_SECONDS = 86400


class CredentialRefused(Exception):
    """The credential proves nobody (``reason`` says why)."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason)
        self.reason: Reason = reason


def _settings(app: Starlette) -> CabinetAuthSettings:
    return CabinetAuthSettings.of(app)


def _bot_token(app: Starlette) -> str:
    token: str | None = services(app).settings.BOT_TOKEN
    if not token:
        raise CredentialRefused("no_bot_token")
    return token


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def init_data_identity(app: Starlette, init_data: str, *, max_age: int | None = None) -> MessengerIdentity:
    """The user of valid mini-application init data (reusable within its age: ``max_age``
    seconds, else ``CABINET_INIT_DATA_MAX_AGE_SECONDS``). Refused ``expired`` when it is
    genuine but older, ``invalid`` when forged or malformed."""
    settings = _settings(app)
    try:
        fields = verify_init_data(
            init_data,
            _bot_token(app),
            max_age=settings.CABINET_INIT_DATA_MAX_AGE_SECONDS if max_age is None else max_age,
            future_skew=settings.CABINET_AUTH_FUTURE_SKEW_SECONDS,
        )
        return identity_from_init_data(fields)
    except MissingIdentity:
        raise CredentialRefused("missing_id") from None
    except TooOld:
        raise CredentialRefused("expired") from None
    except SignatureError:
        raise CredentialRefused("invalid") from None


async def widget_identity(
    app: Starlette, session: AsyncSession, fields: dict[str, Any], received_hash: str
) -> MessengerIdentity:
    """The user of valid login-widget ``fields`` (the signed ones: non-null, without the hash
    and attribution), recorded as used in the caller's transaction."""
    settings = _settings(app)
    max_age = settings.CABINET_WIDGET_MAX_AGE_SECONDS
    try:
        verify_widget(
            fields,
            received_hash,
            _bot_token(app),
            max_age=max_age,
            future_skew=settings.CABINET_AUTH_FUTURE_SKEW_SECONDS,
        )
    except SignatureError:
        raise CredentialRefused("invalid") from None
    messenger_id = fields.get("id")
    if not isinstance(messenger_id, int) or not 0 < messenger_id <= MESSENGER_ID_MAX:
        raise CredentialRefused("missing_id")
    forgotten_at = datetime.fromtimestamp(int(fields["auth_date"]), UTC) + timedelta(seconds=max_age)
    if not await replay.use_once(session, "widget", received_hash.lower(), forgotten_at):
        raise CredentialRefused("replayed")
    return MessengerIdentity(
        messenger_id=messenger_id,
        username=_text(fields.get("username")),
        first_name=_text(fields.get("first_name")),
        last_name=_text(fields.get("last_name")),
    )


async def oidc_identity(app: Starlette, session: AsyncSession, id_token: str) -> MessengerIdentity:
    """The user of a valid ID token of the messenger's OIDC provider, recorded as used."""
    jwks: JWKSCache = app.state.messenger_jwks
    try:
        claims = await jwks.verify(id_token)
    except OIDCNotConfigured:
        raise CredentialRefused("not_configured") from None
    except ProviderUnavailable:
        raise CredentialRefused("unavailable") from None
    except OIDCTokenError:
        raise CredentialRefused("invalid") from None
    try:
        messenger_id = int(claims.get("id", claims["sub"]))
    except (KeyError, TypeError, ValueError):
        raise CredentialRefused("invalid") from None
    if not 0 < messenger_id <= MESSENGER_ID_MAX:
        raise CredentialRefused("invalid")
    # remembered until the token could no longer pass (at most a day: no overflowing dates)
    remaining = min(max(float(claims["exp"]) - time.time(), 0) + LEEWAY_SECONDS, REPLAY_MEMORY_MAX_SECONDS)
    if not await replay.use_once(session, "oidc", id_token, datetime.now(UTC) + timedelta(seconds=remaining)):
        raise CredentialRefused("replayed")
    locale = claims.get("locale")
    return MessengerIdentity(
        messenger_id=messenger_id,
        username=_text(claims.get("preferred_username")),
        first_name=_text(claims.get("given_name")) or _text(claims.get("name")),
        last_name=_text(claims.get("family_name")),
        language=locale[:2] if isinstance(locale, str) else None,
    )
