"""Finding users and building their records: used by every plugin that answers with a user.

A record is read with one statement (:func:`record_select`: the user's columns and its promo
group's, joined; on PostgreSQL also the columns of the ``user_record_columns`` hook, such as
the subscriptions) plus one query per ``user_record_extras`` implementation that did not get
its columns, for a whole page, and validated once per page. Rows are read as plain mappings,
not ORM objects (building ORM instances for a page of 50 cost more than the queries
themselves), on PostgreSQL straight from the driver (:class:`~subsvc.db.DriverSelect`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from pydantic import TypeAdapter
from sqlalchemy import (
    BigInteger,
    ColumnElement,
    FromClause,
    Integer,
    ScalarSelect,
    Select,
    bindparam,
    case,
    or_,
)
from sqlmodel import SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from starlette.requests import Request
from subsvc_promo_groups.api import PromoGroup

from subsvc.api import HTTPError, fits_int32, fits_int64
from subsvc.db import DriverSelect, in_list, is_short
from subsvc.services import services
from subsvc_users.hookspecs import RecordColumns
from subsvc_users.models import User
from subsvc_users.schemas import PromoGroupSummary, UserResponse

USERS = SQLModel.metadata.tables[User.__tablename__]
GROUPS = SQLModel.metadata.tables[PromoGroup.__tablename__]
_ROW_FIELDS = tuple(name for name in UserResponse.model_fields if name in User.model_fields)
RECORD_COLUMNS = (*_ROW_FIELDS, "promo_group_id")
"""The user columns a record is built from."""
_GROUP_FIELDS = tuple(PromoGroupSummary.model_fields)
_GROUP_PREFIX = "promo_group__"
_RECORDS = TypeAdapter(list[UserResponse])


Columns = tuple[RecordColumns, ...]
"""What :func:`record_columns` gives: the plugins' columns read with the records."""


def record_columns(app: Starlette, session: AsyncSession) -> Columns:
    """The ``user_record_columns`` of the app's plugins, on PostgreSQL (elsewhere none)."""
    if session.get_bind().dialect.name != "postgresql":
        return ()
    found: Columns | None = getattr(app.state, "user_record_columns", None)
    if found is None:
        found = tuple(part for part in services(app).plugins.hook.user_record_columns() if part is not None)
        app.state.user_record_columns = found
    return found


def record_select(users: FromClause = USERS, columns: Columns = ()) -> Select[Any]:
    """The columns a user record is built from: the user's, then its promo group's (prefixed
    ``promo_group__``; null when the user has none), then those of ``columns``
    (:func:`record_columns`). Add WHERE, ORDER and LIMIT to taste.

    ``users`` is the users table, or rows with its :data:`RECORD_COLUMNS` from elsewhere (a
    CTE of an ``UPDATE users ... RETURNING`` those columns: the record as changed)."""
    return sa.select(
        *(users.c[name] for name in RECORD_COLUMNS),
        *(GROUPS.c[name].label(_GROUP_PREFIX + name) for name in _GROUP_FIELDS),
        *(column for part in columns for column in part(users)),
    ).select_from(users.outerjoin(GROUPS, users.c.promo_group_id == GROUPS.c.id))


@functools.cache
def _records_by_id(dialect: str, short: bool, columns: Columns) -> DriverSelect:
    return DriverSelect(
        record_select(columns=columns).where(in_list(USERS.c.id, "ids", dialect, short=short))
    )


def _path_match(user_id: int) -> tuple[list[ColumnElement[bool]], ColumnElement[int]]:
    """The conditions a path id matches (a messenger id, an internal id where it fits 32 bits)
    and the order that puts the messenger match first."""
    conditions: list[ColumnElement[bool]] = []
    if fits_int64(user_id):
        conditions.append(USERS.c.messenger_id == user_id)
    if fits_int32(user_id):
        conditions.append(USERS.c.id == user_id)
    return conditions, case((USERS.c.messenger_id == user_id, 0), else_=1)


async def find_user(session: AsyncSession, user_id: int, *, for_update: bool = False) -> User | None:
    """Resolve a path id as the reference does: a messenger id first, then an internal id
    (only when it fits a 32-bit integer). One query: both matches, the messenger one first."""
    conditions, messenger_first = _path_match(user_id)
    if not conditions:  # beyond BIGINT: no row has it
        return None
    query = select(User).where(or_(*conditions)).order_by(messenger_first).limit(1)
    if for_update:
        query = query.with_for_update()
    return (await session.exec(query)).first()


@dataclass(frozen=True)
class PathId:
    """A user id as it comes in a URL path: a messenger id first, else an internal id."""

    value: int

    def parameters(self) -> dict[str, int | None] | None:
        """The parameters of :func:`path_id_subquery`; ``None`` when no user can have the id."""
        if not fits_int64(self.value):
            return None
        return {"path_id": self.value, "path_id32": self.value if fits_int32(self.value) else None}


@functools.cache
def path_id_subquery() -> ScalarSelect[int]:
    """:func:`find_user`'s resolution as a scalar subquery with parameters ``path_id`` and
    ``path_id32`` (:meth:`PathId.parameters`), for use inside another statement
    (``UPDATE users ... WHERE id = (<this>)``); built once."""
    path_id = bindparam("path_id", type_=BigInteger)
    return (
        sa.select(USERS.c.id)
        .where(or_(USERS.c.messenger_id == path_id, USERS.c.id == bindparam("path_id32", type_=Integer)))
        .order_by(case((USERS.c.messenger_id == path_id, 0), else_=1))
        .limit(1)
        .scalar_subquery()
    )


async def find_user_by_messenger_id(session: AsyncSession, messenger_id: int) -> User | None:
    """The user with this messenger id (no fallback to internal ids)."""
    if not fits_int64(messenger_id):
        return None
    return (await session.exec(select(User).where(col(User.messenger_id) == messenger_id))).first()


async def get_user(session: AsyncSession, user_id: int, *, for_update: bool = False) -> User:
    """:func:`find_user`, or 404 ``User not found``."""
    user = await find_user(session, user_id, for_update=for_update)
    if user is None:
        raise HTTPError(404, "User not found")
    return user


async def record_rows(
    session: AsyncSession, user_ids: Sequence[int], columns: Columns = ()
) -> Sequence[Mapping[str, Any]]:
    """The :func:`record_select` rows of these users (in no particular order), with
    ``columns``, changes still pending in the session included."""
    if session.new or session.dirty:
        await session.flush()
    dialect = session.get_bind().dialect.name
    statement = _records_by_id(dialect, is_short(user_ids), columns)
    return await statement.mappings(session, {"ids": list(user_ids)})


async def records_from_rows(
    request: Request, session: AsyncSession, rows: Sequence[Mapping[str, Any]]
) -> list[UserResponse]:
    """The records of :func:`record_select` rows, in their order (one call per
    ``user_record_extras`` implementation for all of them)."""
    if not rows:
        return []
    ids = [row["id"] for row in rows]
    extras: dict[int, dict[str, Any]] = {}
    parts = await services(request.app).plugins.call_all(
        "user_record_extras", session=session, user_ids=ids, rows=rows
    )
    for part in parts:
        for user_id, fields in part.items():
            extras.setdefault(user_id, {}).update(fields)
    records = []
    for values in rows:
        data: dict[str, Any] = {name: values[name] for name in _ROW_FIELDS}
        data["promo_group"] = (
            {name: values[_GROUP_PREFIX + name] for name in _GROUP_FIELDS}
            if values["promo_group_id"] is not None
            else None
        )
        data.update(extras.get(values["id"], ()))
        records.append(data)
    return _RECORDS.validate_python(records)


async def user_records(request: Request, session: AsyncSession, users: Sequence[User]) -> list[UserResponse]:
    """The records of ``users``, in their order (read again with their promo groups in one query)."""
    ids = [user.id for user in users if user.id is not None]
    if not ids:
        return []
    columns = record_columns(request.app, session)
    by_id = {row["id"]: row for row in await record_rows(session, ids, columns)}
    return await records_from_rows(request, session, [by_id[user_id] for user_id in ids if user_id in by_id])


async def user_record(request: Request, session: AsyncSession, user: User) -> UserResponse:
    """The record of one user."""
    return (await user_records(request, session, [user]))[0]
