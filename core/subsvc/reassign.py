"""Give one user's rows of a table to another user, in the caller's transaction: what an
account merge asks of every plugin that keeps rows of users (each for its own tables).

``await reassign(session, Model.__table__.c.user_id, kept_id, removed_id)`` moves every row;
with ``unique=(table.c.promocode_id,)`` the removed user's rows that would duplicate one of the
kept user's on that unique key (the user column plus those columns) are deleted first, the
kept user's winning; ``unique=()`` when the user column alone is unique (one row per user).
``scope`` narrows the unique key to the rows a partial unique index covers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.sql import ColumnElement, FromClause
from sqlmodel.ext.asyncio.session import AsyncSession

Scope = Callable[[FromClause], ColumnElement[bool]]
"""The condition of a partial unique index, for the table or an alias of it."""


async def reassign(
    session: AsyncSession,
    column: sa.Column[Any],
    to_id: int,
    from_id: int,
    *,
    unique: Sequence[sa.Column[Any]] | None = None,
    scope: Scope | None = None,
) -> int:
    """Set ``column`` from ``from_id`` to ``to_id`` on every row; returns how many rows were
    deleted as duplicates (see the module's text)."""
    table = column.table
    dropped = 0
    if unique is not None:
        kept = table.alias(f"kept_{table.name}")
        same = [kept.c[column.key] == to_id, *(kept.c[c.key] == c for c in unique)]
        ours = [column == from_id]
        if scope is not None:
            same.append(scope(kept))
            ours.append(scope(table))
        duplicate = sa.exists(sa.select(sa.literal(1)).select_from(kept).where(*same))
        result = await session.exec(sa.delete(table).where(*ours, duplicate))
        dropped = int(result.rowcount)
    await session.exec(sa.update(table).where(column == from_id).values({column.key: to_id}))
    return dropped


async def drop_rows(session: AsyncSession, column: sa.Column[Any], user_id: int) -> int:
    """Delete every row whose ``column`` is ``user_id``; how many."""
    result = await session.exec(sa.delete(column.table).where(column == user_id))
    return int(result.rowcount)
