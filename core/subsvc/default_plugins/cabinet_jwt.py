"""Internal plugin: cabinet ``Authorization: Bearer <access JWT>`` authentication.

The principal comes from the token's claims (``sub`` = user id; ``messenger_id`` and a
verified ``email`` decide administrator status). A plugin that knows users (the cabinet
login plugin) may implement ``authenticate`` for the cabinet areas too; being registered
later, its implementation is asked first.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection

from subsvc.api.errors import HTTPError
from subsvc.auth.admins import is_admin
from subsvc.auth.jwt import JWTCodec, TokenError
from subsvc.auth.principal import Principal
from subsvc.hookspecs import hookimpl

BEARER = {"WWW-Authenticate": "Bearer"}


def bearer_token(connection: HTTPConnection) -> str | None:
    """The bearer credential of a request; for WebSockets also the ``token`` query parameter."""
    scheme, _, value = connection.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    if connection.scope["type"] == "websocket":
        return connection.query_params.get("token") or None
    return None


def principal_from_claims(connection: HTTPConnection, claims: dict[str, object]) -> Principal:
    try:
        user_id = int(str(claims["sub"]))
    except (KeyError, ValueError):
        raise HTTPError(401, "Invalid token payload", BEARER) from None
    messenger_id = claims.get("messenger_id")
    email = claims.get("email") if claims.get("email_verified") else None
    admin = is_admin(
        connection.app.state.settings,
        messenger_id=messenger_id if isinstance(messenger_id, int) else None,
        email=email if isinstance(email, str) else None,
    )
    return Principal(kind="user", id=user_id, is_admin=admin, claims=dict(claims))


@hookimpl
def authenticate(connection: HTTPConnection, area: str) -> Principal | None:
    if area not in ("cabinet", "cabinet-admin"):
        return None
    token = bearer_token(connection)
    if token is None:
        raise HTTPError(401, "Authentication required", BEARER)
    codec: JWTCodec = connection.app.state.jwt
    try:
        claims = codec.verify(token, "access")
    except TokenError:
        raise HTTPError(401, "Invalid or expired token", BEARER) from None
    return principal_from_claims(connection, claims)
