"""Authentication of cabinet requests: the access JWT, then the user's row (one primary-key
read, kept for the request: :func:`authenticated_user`).

Answers as the reference does: no token 401 'Authentication required'; bad, expired or
wrong-type token 401 'Invalid or expired token'; a ``sub`` that is no id 401 'Invalid token
payload' (all with ``WWW-Authenticate: Bearer``); no such user 404 'User not found'; a
blocked user 403 'User account is not active'; a deleted one 403 with
``{"code": "account_deleted", "message": ...}``. Administrator status comes from the row, not
from the token's claims, so it follows ``ADMIN_IDS``/``ADMIN_EMAILS`` and e-mail changes.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Select
from starlette.requests import HTTPConnection
from subsvc_users.api import USERS, User

from subsvc.api import INT32_MAX
from subsvc.api.errors import HTTPError
from subsvc.auth.principal import Principal
from subsvc.default_plugins import cabinet_jwt
from subsvc.services import services
from subsvc_cabinet_auth.sessions import is_env_admin
from subsvc_cabinet_auth.settings import CabinetAuthSettings

STATE_KEY = "cabinet_user"
USER_NOT_FOUND = "User not found"
NOT_ACTIVE = "User account is not active"
ACCOUNT_DELETED = "Account was deactivated. Open the bot and press /start to restore access."


def deleted_detail(connection: HTTPConnection) -> dict[str, Any]:
    detail: dict[str, Any] = {"code": "account_deleted", "message": ACCOUNT_DELETED}
    bot = CabinetAuthSettings.of(connection.app).BOT_USERNAME
    if bot:
        detail["bot_username"] = bot
    return detail


def check_status(connection: HTTPConnection, status: str) -> None:
    """403 for a user who may not use the cabinet (blocked, deleted)."""
    if status == "active":
        return
    if status == "deleted":
        raise HTTPError(403, deleted_detail(connection))
    raise HTTPError(403, NOT_ACTIVE)


@functools.cache
def _user_by_id() -> Select[Any]:
    return sa.select(USERS).where(USERS.c.id == sa.bindparam("user_id"))


async def authenticate(connection: HTTPConnection) -> Principal:
    # core's check of the token (401s), then the row decides
    claimed = cabinet_jwt.authenticate(connection, "cabinet")
    assert claimed is not None
    if not 0 < claimed.id <= INT32_MAX:
        raise HTTPError(404, USER_NOT_FOUND)
    async with services(connection.app).db.session(read_only=True) as session:
        row = (await session.exec(_user_by_id(), params={"user_id": claimed.id})).first()  # type: ignore[call-overload]
    if row is None:
        raise HTTPError(404, USER_NOT_FOUND)
    user = User(**row._mapping)  # a plain row read, detached: cheaper than an ORM query
    check_status(connection, user.status)
    connection.scope.setdefault("state", {})[STATE_KEY] = user
    admin = is_env_admin(services(connection.app).settings, user)
    return replace(claimed, is_admin=admin)


def authenticated_user(connection: HTTPConnection) -> User | None:
    """The user row read while authenticating this request (detached: for reading; load it
    in the request's session to change it)."""
    user: User | None = connection.scope.get("state", {}).get(STATE_KEY)
    return user
