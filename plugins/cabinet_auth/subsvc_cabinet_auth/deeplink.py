"""Deep-link login, for when the messenger's login pages are out of reach.

1. The cabinet asks for a token (``POST /cabinet/auth/deeplink/request``) and shows the link
   ``https://<messenger>/<bot>?start=webauth_<token>``.
2. The user opens it; the bot confirms the token for that user through the Web API
   (``POST /auth/deeplink/confirm``, X-API-Key).
3. The cabinet polls (``POST /cabinet/auth/deeplink/poll``): 202 while pending, the session
   once confirmed (exactly once), 410 when expired or already used.

Only the token's SHA-256 is stored; rows are purged once expired.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from sqlalchemy import delete, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_users.api import User

from subsvc.api.errors import HTTPError
from subsvc.db import utcnow
from subsvc_cabinet_auth.models import (
    DEEPLINK_CONFIRMED,
    DEEPLINK_CONSUMED,
    DEEPLINK_PENDING,
    DeepLinkToken,
)
from subsvc_cabinet_auth.sessions import token_hash

WAITING = "Waiting for confirmation"
GONE = "Token expired or not found"
CONSUMED = "Token already consumed"
TAKEN = "Token already confirmed by another user"


async def create(session: AsyncSession, lifetime_seconds: int) -> str:
    """A new pending token (returned once, stored hashed); expired rows are purged."""
    now = utcnow()
    await session.exec(delete(DeepLinkToken).where(col(DeepLinkToken.expires_at) < now))
    token = secrets.token_urlsafe(32)
    session.add(
        DeepLinkToken(
            token_hash=token_hash(token),
            status=DEEPLINK_PENDING,
            created_at=now,
            expires_at=now + timedelta(seconds=lifetime_seconds),
        )
    )
    await session.flush()
    return token


async def _live(session: AsyncSession, token: str) -> DeepLinkToken:
    row = (
        await session.exec(select(DeepLinkToken).where(col(DeepLinkToken.token_hash) == token_hash(token)))
    ).first()
    if row is None or row.expires_at <= utcnow():
        raise HTTPError(410, GONE)
    return row


async def confirm(session: AsyncSession, token: str, user: User) -> DeepLinkToken:
    """The bot's confirmation for ``user``; repeating it for the same user changes nothing.
    410 when expired or consumed, 409 when another user confirmed it."""
    row = await _live(session, token)
    if row.status == DEEPLINK_CONSUMED:
        raise HTTPError(410, CONSUMED)
    if row.status == DEEPLINK_CONFIRMED:
        if row.user_id != user.id:
            raise HTTPError(409, TAKEN)
        return row
    result = await session.exec(
        update(DeepLinkToken)
        .where(col(DeepLinkToken.id) == row.id, col(DeepLinkToken.status) == DEEPLINK_PENDING)
        .values(status=DEEPLINK_CONFIRMED, user_id=user.id, confirmed_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    if not result.rowcount:
        raise HTTPError(409, TAKEN)
    await session.refresh(row)
    return row


async def consume(session: AsyncSession, token: str) -> DeepLinkToken:
    """The confirmed token (its ``user_id`` set), consuming it (a concurrent poll gets 410); 202 while
    pending."""
    row = await _live(session, token)
    if row.status == DEEPLINK_PENDING:
        raise HTTPError(202, WAITING)
    if row.status != DEEPLINK_CONFIRMED or row.user_id is None:
        raise HTTPError(410, CONSUMED)
    result = await session.exec(
        update(DeepLinkToken)
        .where(col(DeepLinkToken.id) == row.id, col(DeepLinkToken.status) == DEEPLINK_CONFIRMED)
        .values(status=DEEPLINK_CONSUMED)
        .execution_options(synchronize_session=False)
    )
    if not result.rowcount:
        raise HTTPError(410, CONSUMED)
    return row
