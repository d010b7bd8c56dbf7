"""Extension points of the users plugin, for the plugins that build on it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, FromClause
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookspec

RecordColumns = Callable[[FromClause], Sequence[ColumnElement[Any]]]
"""Given the users a record statement reads (the table, or rows with its columns), labelled
columns correlated to them (scalar subqueries) to read with the records."""


@hookspec
def user_record_extras(  # type: ignore[empty-body]
    session: AsyncSession, user_ids: Sequence[int], rows: Sequence[Mapping[str, Any]]
) -> Awaitable[dict[int, dict[str, Any]]]:
    """Return (an awaitable of) extra fields of the user record for each of ``user_ids``:
    ``{user_id: {"subscription": {...} | None, "subscriptions": [...]}}``.

    Called once per response with every user on the page, so implementations load what they
    need in one query, or none: ``rows`` (the records' rows, in the order of ``user_ids``)
    carry the columns of the implementation's ``user_record_columns`` where the statement
    read them. The users plugin merges the dicts of every implementation into the records
    (``UserResponse`` declares the fields; absent ones take their defaults).
    """


@hookspec
def user_record_columns() -> RecordColumns | None:
    """PostgreSQL: a :data:`RecordColumns` whose columns every statement that reads user
    records adds (one round trip instead of a query of ``user_record_extras``). Return the
    same function every time: statements are built once per combination."""


@hookspec
def user_deleting(session: AsyncSession, user_id: int) -> Awaitable[None] | None:
    """``user_id`` is about to be deleted in ``session``'s transaction (its rows are all still
    there): take it out of what is kept about it elsewhere (running totals, say). Rows that
    refer to the user go by their foreign keys' rules right after."""
