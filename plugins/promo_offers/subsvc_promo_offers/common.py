"""Small pieces the plugin's services share: id ranges, joined rows, the user summary, filters
and pages of lists."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel
from sqlalchemy import RowMapping, Select, Table, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Result
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import fits_int32
from subsvc_promo_offers.schemas import OfferUserInfo
from subsvc_promo_offers.tables import USERS

MAX_OFFSET = 2**62  # beyond any table; larger offsets would overflow the database's integer
Rows = Result[*tuple[Any, ...]]
R = TypeVar("R", bound=BaseModel)


async def run_select(
    session: AsyncSession, query: Select[Any], params: Mapping[str, Any] | None = None
) -> Rows:
    """Run a SQLAlchemy Core ``SELECT`` in the session (autoflushed, in its transaction).
    sqlmodel types ``exec`` for its own ``select`` only, which takes no ``Table``."""
    result: Rows = await session.exec(query, params=params)  # type: ignore[call-overload]
    return result


def id_chunk(session: AsyncSession) -> int:
    """Ids per statement: PostgreSQL takes them as one array parameter; SQLite binds each one
    (and allows some thirty thousand variables)."""
    return 10_000 if session.get_bind().dialect.name == "postgresql" else 1_000


def dialect_insert(session: AsyncSession, table: Table) -> Any:
    """``INSERT`` of the session's dialect (for ``ON CONFLICT``)."""
    dialect = session.get_bind().dialect.name
    return (postgresql if dialect == "postgresql" else sqlite).insert(table)


def full_name(first_name: str | None, last_name: str | None, username: str | None) -> str | None:
    """First and last name, else the username."""
    name = " ".join(part for part in (first_name, last_name) if part).strip()
    return name or username


def labelled(table: Table, prefix: str, names: Iterable[str]) -> list[Any]:
    """``table``'s columns ``names`` labelled ``<prefix><name>``: a joined table's columns
    beside the main table's in one row."""
    return [table.c[name].label(prefix + name) for name in names]


def joined(row: RowMapping, prefix: str, names: Iterable[str]) -> dict[str, Any] | None:
    """The values of :func:`labelled` columns by their names; ``None`` when the outer join found
    no row (its id is null)."""
    if row[prefix + "id"] is None:
        return None
    return {name: row[prefix + name] for name in names}


def own_values(row: RowMapping, table: Table) -> dict[str, Any]:
    """A joined row's values of ``table``'s own columns, by name."""
    return {column.name: row[column.name] for column in table.c}


USER_FIELDS = ("id", "messenger_id", "email", "username", "first_name", "last_name")
USER_COLUMNS = labelled(USERS, "u_", USER_FIELDS)


def user_info(row: RowMapping) -> OfferUserInfo | None:
    """The user summary from a row carrying :data:`USER_COLUMNS` (``None`` without a user)."""
    user = joined(row, "u_", USER_FIELDS)
    if user is None:
        return None
    return OfferUserInfo(**user, full_name=full_name(user["first_name"], user["last_name"], user["username"]))


def equal_to(table: Table, values: Mapping[str, object]) -> list[Any] | None:
    """``column == value`` for every column of ``table`` named in ``values`` with a value: the
    WHERE conditions of a filter; ``None`` when no row can match (an id beyond the id range)."""
    conditions: list[Any] = []
    for name, value in values.items():
        if value is None:
            continue
        if isinstance(value, int) and not fits_int32(value):
            return None
        conditions.append(table.c[name] == value)
    return conditions


async def newest_first_page(
    session: AsyncSession,
    query: Select[Any],
    table: Table,
    conditions: Sequence[Any] | None,
    limit: int,
    offset: int,
) -> tuple[int, list[RowMapping]]:
    """How many rows of ``table`` match ``conditions``, and one window of ``query`` (plain rows)
    filtered by them, newest first (``created_at``, then ``id``); nothing when ``conditions``
    is ``None`` (see :func:`equal_to`). A window that ends before ``limit`` gives the total
    itself; only a full or empty window costs a count."""
    if conditions is None:
        return 0, []
    query = query.where(*conditions).order_by(table.c.created_at.desc(), table.c.id.desc())
    rows: list[RowMapping] = []
    if offset <= MAX_OFFSET:
        rows = list((await run_select(session, query.limit(limit).offset(offset))).mappings().all())
    if (rows and len(rows) < limit) or (not rows and offset == 0):
        return offset + len(rows), rows
    count = await run_select(session, select(func.count()).select_from(table).where(*conditions))
    return int(count.scalar_one()), rows


@dataclass(frozen=True)
class Listing(Generic[R]):
    """How rows of ``table`` are read and answered as ``record``: each with its user and one
    more record, the ``joined`` field (a ``joined_model`` read from ``joined_table`` through the
    row's ``<joined>_id``, its columns labelled ``<joined>__``); a null ``free_json`` is ``{}``."""

    table: Table
    record: type[R]
    free_json: str
    joined: str
    joined_model: type[BaseModel]
    joined_table: Table

    def query(self) -> Select[Any]:
        """Every row with its user's and its joined record's columns."""
        return (
            select(self.table, *USER_COLUMNS, *labelled(self.joined_table, self._prefix, self._fields))
            .select_from(self.table)
            .outerjoin(USERS, USERS.c.id == self.table.c.user_id)
            .outerjoin(self.joined_table, self.joined_table.c.id == self.table.c[f"{self.joined}_id"])
        )

    def record_of(self, row: RowMapping) -> R:
        """A row of :meth:`query` as the wire record."""
        values = own_values(row, self.table)
        values[self.free_json] = values[self.free_json] or {}
        other = joined(row, self._prefix, self._fields)
        values[self.joined] = None if other is None else self.joined_model(**other)
        return self.record(**values, user=user_info(row))

    async def page(
        self, session: AsyncSession, filters: Mapping[str, object], limit: int, offset: int
    ) -> tuple[int, list[R]]:
        """How many rows have the ``filters``' values (see :func:`equal_to`), and one window of
        them as records (see :func:`newest_first_page`)."""
        conditions = equal_to(self.table, filters)
        total, rows = await newest_first_page(session, self.query(), self.table, conditions, limit, offset)
        return total, [self.record_of(row) for row in rows]

    @property
    def _fields(self) -> tuple[str, ...]:
        return tuple(self.joined_model.model_fields)

    @property
    def _prefix(self) -> str:
        return f"{self.joined}__"  # not "<joined>_": "<joined>_id" is a column of the row
