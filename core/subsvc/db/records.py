"""Writing a new record the way every plugin does."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol, TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db.types import utcnow


class Stamped(Protocol):
    """A record that keeps when it was created and last updated."""

    created_at: datetime
    updated_at: datetime


R = TypeVar("R", bound=Stamped)


async def add_new(session: AsyncSession, record: R) -> R:
    """Add ``record`` created and updated at one instant (now) and flush it, so its id is set."""
    record.created_at = record.updated_at = utcnow()
    session.add(record)
    await session.flush()
    return record
