"""Writing a new record the way every plugin does, reading a page of records with their total,
and work to do once a session commits."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol, TypeVar

from sqlalchemy import ColumnExpressionArgument, event, func
from sqlalchemy.orm import Session
from sqlmodel import SQLModel, select
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


M = TypeVar("M", bound=SQLModel)


async def page_of(
    session: AsyncSession,
    model: type[M],
    where: Sequence[ColumnExpressionArgument[bool]],
    order: Sequence[Any],
    offset: int,
    limit: int,
) -> tuple[list[M], int]:
    """The rows of ``model`` matching every ``where`` condition, in ``order``, from ``offset``
    (at most ``limit``), and how many match in all."""
    rows = await session.exec(select(model).where(*where).order_by(*order).offset(offset).limit(limit))
    total = await session.exec(select(func.count()).select_from(model).where(*where))
    return list(rows.all()), int(total.one())


def once_after_commit(session: AsyncSession, key: str, callback: Callable[[Session], None]) -> None:
    """Call ``callback(session)`` once when ``session`` next commits, however many times it
    is asked for under ``key`` before (nothing if it rolls back and is not committed). The
    release of a SAVEPOINT (``begin_nested``), which SQLAlchemy also reports as
    ``after_commit``, is not the commit: the callback waits for the outermost one."""
    sync_session = session.sync_session
    if sync_session.info.get(key):
        return
    sync_session.info[key] = True

    pending = [True]

    def called(committed: Session) -> None:
        if not pending or committed.get_nested_transaction() is not None:  # done, or a SAVEPOINT
            return
        pending.clear()
        committed.info.pop(key, None)
        callback(committed)

    event.listen(sync_session, "after_commit", called)
