"""One-time credentials: a credential's digest is stored when it is used, and a second use
is refused. Rows live in the database, so every instance sees them; each is kept until the
credential could no longer be accepted anyway, then purged."""

from __future__ import annotations

import hashlib
import random
from datetime import datetime

from sqlalchemy import delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import utcnow
from subsvc_cabinet_auth.models import UsedCredential

PURGE_ONE_IN = 50


def digest(kind: str, credential: str) -> str:
    return hashlib.sha256(f"{kind}:{credential}".encode()).hexdigest()


async def use_once(session: AsyncSession, kind: str, credential: str, expires_at: datetime) -> bool:
    """Record the use of ``credential`` in the caller's transaction: ``True`` the first time,
    ``False`` when it was used before (and that use is not yet forgotten).

    Concurrent first uses are decided by the unique digest: the second insert waits for the
    first transaction and then finds the row."""
    now = utcnow()
    if random.randrange(PURGE_ONE_IN) == 0:  # noqa: S311 - not security relevant
        await session.exec(delete(UsedCredential).where(col(UsedCredential.expires_at) < now))
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    insert = dialect.insert(UsedCredential).values(
        digest=digest(kind, credential), kind=kind, expires_at=max(expires_at, now)
    )
    statement = insert.on_conflict_do_update(
        index_elements=["digest"],
        set_={"kind": insert.excluded.kind, "expires_at": insert.excluded.expires_at},
        where=col(UsedCredential.expires_at) < now,  # a use long forgotten may be recorded again
    ).returning(col(UsedCredential.digest))
    return (await session.exec(statement)).first() is not None
