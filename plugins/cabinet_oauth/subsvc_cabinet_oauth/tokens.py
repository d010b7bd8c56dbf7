"""One-time credentials of the flows: OAuth states and merge tokens.

Both are 32 random bytes (URL-safe, 43 characters) handed out once and stored as SHA-256.
A state is consumed by one ``DELETE ... RETURNING`` in a transaction of its own, committed
before the provider is called: whatever happens next, it cannot be used twice. A merge
token is consumed inside the merge's transaction, so a merge that fails leaves it usable.
Expired rows are swept whenever a new one is made.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import delete
from sqlalchemy.orm import Mapped
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import Database, utcnow
from subsvc_cabinet_oauth.models import MergeToken, OAuthState


def digest(token: str) -> str:
    """SHA-256 (hex) of a token: what is stored instead of it."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


Credential = TypeVar("Credential", OAuthState, MergeToken)


async def _issue(
    session: AsyncSession, model: type[Credential], hash_field: str, ttl_seconds: int, **fields: Any
) -> str:
    """Sweep ``model``'s expired rows, store a fresh token's row (its digest in ``hash_field``)
    in the caller's transaction and return the token."""
    now = utcnow()
    await session.exec(delete(model).where(col(model.expires_at) <= now))
    token = new_token()
    expires_at = now + timedelta(seconds=ttl_seconds)
    hashed: dict[str, Any] = {hash_field: digest(token)}
    session.add(model(**hashed, **fields, created_at=now, expires_at=expires_at))
    return token


async def _take(
    session: AsyncSession, model: type[Credential], hashed: Mapped[str], token: str
) -> Credential | None:
    """Delete a token's row (``hashed`` its digest column), returning it unless it is unknown,
    used or expired."""
    statement = delete(model).where(hashed == digest(token)).returning(model)
    row: Credential | None = (await session.exec(statement)).scalars().first()
    if row is None or row.expires_at <= utcnow():
        return None
    return row


async def create_state(
    session: AsyncSession,
    *,
    provider: str,
    purpose: str,
    redirect_uri: str,
    ttl_seconds: int,
    user_id: int | None = None,
    code_verifier: str | None = None,
) -> str:
    """Store a fresh state (in the caller's transaction) and return it."""
    return await _issue(
        session,
        OAuthState,
        "state_hash",
        ttl_seconds,
        provider=provider,
        purpose=purpose,
        user_id=user_id,
        code_verifier=code_verifier,
        redirect_uri=redirect_uri,
    )


async def consume_state(db: Database, state: str) -> OAuthState | None:
    """Take a state out of the table (committed at once); ``None`` when it is unknown, used
    or expired."""
    async with db.session() as session:
        row = await _take(session, OAuthState, col(OAuthState.state_hash), state)
        await session.commit()
    return row


async def create_merge_token(
    session: AsyncSession,
    *,
    primary_user_id: int,
    secondary_user_id: int,
    provider: str,
    subject: str,
    ttl_seconds: int,
) -> str:
    """Store a merge token (in the caller's transaction) and return it."""
    return await _issue(
        session,
        MergeToken,
        "token_hash",
        ttl_seconds,
        primary_user_id=primary_user_id,
        secondary_user_id=secondary_user_id,
        provider=provider,
        subject=subject,
    )


async def find_merge_token(session: AsyncSession, token: str) -> MergeToken | None:
    """The pending merge of a token, if it exists and has not expired (not consumed)."""
    query = select(MergeToken).where(
        col(MergeToken.token_hash) == digest(token), col(MergeToken.expires_at) > utcnow()
    )
    return (await session.exec(query)).first()


async def consume_merge_token(session: AsyncSession, token: str) -> MergeToken | None:
    """Take a merge token out of the table in the caller's transaction (a rollback puts it
    back); ``None`` when it is unknown, used or expired."""
    return await _take(session, MergeToken, col(MergeToken.token_hash), token)


def seconds_left(expires_at: datetime) -> int:
    return max(0, int((expires_at - utcnow()).total_seconds()))
