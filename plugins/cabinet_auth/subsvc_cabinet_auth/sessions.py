"""Cabinet sessions: what every login method ends with, and what refresh and logout do.

:func:`issue_session` is the one way to log a user in (the e-mail and OAuth plugins call it
too): an access JWT carrying the user's grants and a refresh JWT whose SHA-256 is stored,
revocable, in ``cabinet_refresh_tokens``. Refresh tokens are not rotated: one stays valid
until it expires or is logged out.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

import jwt
from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from starlette.requests import Request
from subsvc_users.api import User, record_cabinet_login

from subsvc.api.errors import HTTPError
from subsvc.auth.admins import is_admin
from subsvc.auth.jwt import ALGORITHM, JWTCodec, TokenError
from subsvc.auth.permissions import user_grants
from subsvc.auth.principal import Grants
from subsvc.db import utcnow
from subsvc.services import services
from subsvc.settings import Settings
from subsvc_cabinet_auth.models import CabinetRefreshToken
from subsvc_cabinet_auth.schemas import AuthResponse, CabinetUserResponse, TokenResponse
from subsvc_cabinet_auth.settings import CabinetAuthSettings

# e-mails verified by these sources may make their owner an administrator (ADMIN_EMAILS);
# the others (e.g. some OAuth providers) do not prove ownership well enough
TRUSTED_EMAIL_SOURCES = frozenset({"cabinet", "oauth_google", "oauth_discord", "admin_override"})
ADMIN_GRANTS = Grants(roles=("superadmin",), permissions=("*:*",), level=1000)

INVALID_REFRESH = "Invalid or expired refresh token"
INVALID_PAYLOAD = "Invalid token payload"
REFRESH_REVOKED = "Refresh token not found or revoked"
REFRESH_EXPIRED = "Refresh token is no longer valid"
USER_INACTIVE = "User not found or inactive"


def token_hash(token: str) -> str:
    """SHA-256 (hex) of a token: what is stored instead of the token."""
    return hashlib.sha256(token.encode()).hexdigest()


def admin_email(user: User) -> str | None:
    """The user's e-mail when it may count for ``ADMIN_EMAILS``: verified, by a trusted source."""
    if not user.email or not user.email_verified:
        return None
    source = user.email_verification_source
    return user.email if source is None or source in TRUSTED_EMAIL_SOURCES else None


def is_env_admin(settings: Settings, user: User) -> bool:
    """Is the user an administrator by ``ADMIN_IDS`` / ``ADMIN_EMAILS``?"""
    return is_admin(settings, messenger_id=user.messenger_id, email=admin_email(user))


async def grants_of(app: Starlette, session: AsyncSession, user: User) -> Grants:
    """The user's RBAC standing; environment administrators hold everything at level 1000."""
    if is_env_admin(services(app).settings, user):
        return ADMIN_GRANTS
    assert user.id is not None
    return await user_grants(app, session, user.id)


def access_claims(user: User, grants: Grants) -> dict[str, Any]:
    """The claims of an access token besides ``sub``, ``type``, ``iat``, ``exp``."""
    claims: dict[str, Any] = {
        "permissions": list(grants.permissions),
        "roles": list(grants.roles),
        "role_level": grants.level,
    }
    if user.messenger_id is not None:
        claims["messenger_id"] = user.messenger_id
    if user.email and user.email_verified:
        claims["email"] = user.email
        claims["email_verified"] = True
    return claims


def expires_in(codec: JWTCodec) -> int:
    return int(codec.access_lifetime.total_seconds())


async def issue_session(
    request: Request, session: AsyncSession, user: User, *, device_info: str | None = None
) -> AuthResponse:
    """Log ``user`` in: tokens with fresh grants, the refresh token's hash stored, and
    ``cabinet_last_login`` set, all in the caller's transaction."""
    assert user.id is not None
    app = request.app
    codec: JWTCodec = services(app).jwt
    grants = await grants_of(app, session, user)
    access = codec.access_token(user.id, **access_claims(user, grants))
    refresh = codec.refresh_token(user.id)
    now = utcnow()
    session.add(
        CabinetRefreshToken(
            user_id=user.id,
            token_hash=token_hash(refresh),
            device_info=device_info[:255] if device_info else None,
            created_at=now,
            expires_at=now + codec.refresh_lifetime,
        )
    )
    record_cabinet_login(session, user, now)
    await session.flush()
    return AuthResponse(
        access_token=access,
        refresh_token=refresh,
        expires_in=expires_in(codec),
        user=CabinetUserResponse.model_validate(user),
    )


async def refresh_access(request: Request, session: AsyncSession, refresh_token: str) -> TokenResponse:
    """A new access token (fresh grants) for a valid, stored, unrevoked refresh token; the
    refresh token itself is handed back unchanged. 401 with the reason otherwise."""
    app = request.app
    codec: JWTCodec = services(app).jwt
    try:
        claims = codec.verify(refresh_token, "refresh")
    except TokenError:
        raise HTTPError(401, INVALID_REFRESH) from None
    try:
        user_id = int(str(claims["sub"]))
    except (KeyError, ValueError):
        raise HTTPError(401, INVALID_PAYLOAD) from None
    stored = (
        await session.exec(
            select(CabinetRefreshToken).where(
                col(CabinetRefreshToken.token_hash) == token_hash(refresh_token),
                col(CabinetRefreshToken.revoked_at).is_(None),
            )
        )
    ).first()
    if stored is None or stored.user_id != user_id:
        raise HTTPError(401, REFRESH_REVOKED)
    if stored.expires_at <= utcnow():
        raise HTTPError(401, REFRESH_EXPIRED)
    user = await session.get(User, user_id)
    if user is None or user.status != "active":
        raise HTTPError(401, USER_INACTIVE)
    grants = await grants_of(app, session, user)
    access = codec.access_token(user_id, **access_claims(user, grants))
    return TokenResponse(access_token=access, refresh_token=refresh_token, expires_in=expires_in(codec))


async def revoke(session: AsyncSession, refresh_token: str) -> bool:
    """Revoke a stored refresh token; ``False`` when it is unknown or already revoked."""
    result = await session.exec(
        update(CabinetRefreshToken)
        .where(
            col(CabinetRefreshToken.token_hash) == token_hash(refresh_token),
            col(CabinetRefreshToken.revoked_at).is_(None),
        )
        .values(revoked_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    return bool(result.rowcount)


async def revoke_all(session: AsyncSession, user_id: int) -> int:
    """Revoke every refresh token of a user (password change, account merge); how many."""
    result = await session.exec(
        update(CabinetRefreshToken)
        .where(col(CabinetRefreshToken.user_id) == user_id, col(CabinetRefreshToken.revoked_at).is_(None))
        .values(revoked_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount)


# --- auto-login tokens (handed out after a guest purchase) ---------------------------------

AUTO_LOGIN = "auto_login"


def issue_auto_login_token(app: Starlette, user_id: int) -> str:
    """A one-time token that logs ``user_id`` in through ``POST /cabinet/auth/login/auto``."""
    codec: JWTCodec = services(app).jwt
    hours = CabinetAuthSettings.of(app).CABINET_AUTO_LOGIN_TOKEN_HOURS
    now = utcnow()
    payload = {
        "sub": str(user_id),
        "type": AUTO_LOGIN,
        "iat": now,
        "exp": now + timedelta(hours=hours),
        "jti": secrets.token_hex(16),
    }
    return jwt.encode(payload, codec.secret, algorithm=ALGORITHM)


def verify_auto_login_token(app: Starlette, token: str) -> dict[str, Any]:
    """The claims of a valid auto-login token; :class:`TokenError` otherwise."""
    codec: JWTCodec = services(app).jwt
    try:
        claims: dict[str, Any] = jwt.decode(
            token, codec.secret, algorithms=[ALGORITHM], options={"require": ["exp", "sub", "type"]}
        )
    except jwt.PyJWTError as exc:
        raise TokenError(str(exc)) from None
    if claims.get("type") != AUTO_LOGIN:
        raise TokenError(f"expected an {AUTO_LOGIN} token, got {claims.get('type')!r}")
    return claims
