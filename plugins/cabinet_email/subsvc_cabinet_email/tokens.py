"""Pending proofs (:class:`EmailToken`): making, finding and using them.

Link tokens are 32 random bytes (64 hex characters) stored as their SHA-256. Change codes
are 6 digits stored as an HMAC-SHA256 keyed with the cabinet's JWT secret and bound to the
user, so a leaked table does not give the codes away by a lookup of a million hashes.
Merge codes are made the same way, bound to the purpose ``email-merge``.
Several live proofs of one purpose may exist (a resent link); using one deletes its
siblings, and the newest one is the pending change. Rows expired for a day are purged
whenever a new one is made.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta
from typing import Any

from sqlalchemy import delete
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import utcnow
from subsvc_cabinet_email.models import EmailToken

PURGE_AFTER = timedelta(days=1)


def new_link_token() -> str:
    return secrets.token_hex(32)


def hash_link_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_code() -> str:
    return f"{secrets.randbelow(1_000_000):06d}"


def hash_code(secret: str, user_id: int, code: str, purpose: str = "email-change") -> str:
    return hmac.new(secret.encode(), f"{purpose}:{user_id}:{code}".encode(), hashlib.sha256).hexdigest()


def codes_match(
    expected_hash: str, secret: str, user_id: int, code: str, purpose: str = "email-change"
) -> bool:
    return hmac.compare_digest(expected_hash, hash_code(secret, user_id, code, purpose))


def is_expired(row: EmailToken) -> bool:
    return row.expires_at <= utcnow()


async def issue(
    session: AsyncSession, purpose: str, token_hash: str, *, email: str, lifetime: timedelta, **fields: Any
) -> EmailToken:
    """Add a proof of ``purpose`` for ``email`` living ``lifetime`` (``fields``: ``user_id``,
    ``password_hash`` and the new account's profile)."""
    now = utcnow()
    await session.exec(delete(EmailToken).where(col(EmailToken.expires_at) < now - PURGE_AFTER))
    row = EmailToken(
        purpose=purpose,
        token_hash=token_hash,
        email=email,
        expires_at=now + lifetime,
        created_at=now,
        **fields,
    )
    session.add(row)
    await session.flush()
    return row


async def find(session: AsyncSession, purpose: str, token_hash: str) -> EmailToken | None:
    query = select(EmailToken).where(EmailToken.purpose == purpose, EmailToken.token_hash == token_hash)
    return (await session.exec(query)).first()


async def newest_for_user(
    session: AsyncSession, purpose: str, user_id: int, *, live_only: bool = False
) -> EmailToken | None:
    """The user's newest proof of ``purpose`` (with ``live_only``, among the unexpired)."""
    query = select(EmailToken).where(EmailToken.purpose == purpose, EmailToken.user_id == user_id)
    if live_only:
        query = query.where(col(EmailToken.expires_at) > utcnow())
    query = query.order_by(col(EmailToken.created_at).desc(), col(EmailToken.id).desc()).limit(1)
    return (await session.exec(query)).first()


async def pending_registrations(session: AsyncSession, email: str, limit: int = 3) -> list[EmailToken]:
    """The newest unexpired verification links of ``email`` that carry a password."""
    query = (
        select(EmailToken)
        .where(
            EmailToken.purpose == "verify",
            EmailToken.email == email,
            col(EmailToken.password_hash).is_not(None),
            col(EmailToken.expires_at) > utcnow(),
        )
        .order_by(col(EmailToken.id).desc())
        .limit(limit)
    )
    return list((await session.exec(query)).all())


async def use(session: AsyncSession, row: EmailToken) -> bool:
    """Consume ``row`` and its siblings (same purpose, same user, or for a new account the
    same address). False when another request consumed it first."""
    assert row.id is not None
    result = await session.exec(delete(EmailToken).where(col(EmailToken.id) == row.id))
    if result.rowcount != 1:
        return False
    await discard(session, row.purpose, user_id=row.user_id, email=None if row.user_id else row.email)
    return True


async def discard(
    session: AsyncSession, purpose: str, *, user_id: int | None = None, email: str | None = None
) -> int:
    """Delete every proof of ``purpose`` of a user (or, without one, of a new account's
    address); the number deleted."""
    statement = delete(EmailToken).where(col(EmailToken.purpose) == purpose)
    if user_id is not None:
        statement = statement.where(col(EmailToken.user_id) == user_id)
    else:
        statement = statement.where(col(EmailToken.user_id).is_(None), col(EmailToken.email) == email)
    result = await session.exec(statement)
    return int(result.rowcount or 0)


async def delete_row(session: AsyncSession, row_id: int) -> None:
    await session.exec(delete(EmailToken).where(col(EmailToken.id) == row_id))
