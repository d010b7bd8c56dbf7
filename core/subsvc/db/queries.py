"""Statement pieces that read the same on SQLite and PostgreSQL but cost less on the latter."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Cast, Column, ColumnElement, Float, Label, Numeric, Select, any_, bindparam
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.types import TypeDecorator


def in_list(column: ColumnElement[Any], name: str, dialect: str) -> ColumnElement[bool]:
    """``column`` is one of the list passed as parameter ``name``.

    On PostgreSQL one array parameter (``column = ANY(:name)``): the statement text is the same
    for every length, so it is compiled and prepared once. Elsewhere an expanding ``IN``, which
    is rendered for each call. Build statements that use it once per dialect.
    """
    if dialect == "postgresql":
        return column == any_(bindparam(name, type_=ARRAY(column.type)))
    return column.in_(bindparam(name, expanding=True))


_DriverForm = tuple[str, tuple[tuple[str, Callable[[Any], Any] | None], ...]]


class DriverSelect:
    """A prebuilt SELECT whose rows PostgreSQL's driver (asyncpg) hands over directly.

    For a page of records SQLAlchemy's execution and result layers cost about four times the
    CPU of the query itself (bench/README.md). On PostgreSQL this statement is compiled once
    and run on the session's own connection (inside its transaction, if one has begun), its
    parameters converted as SQLAlchemy would; its rows come back as the driver's records,
    mappings by column label. Elsewhere, or when SQLAlchemy would convert a selected column's
    values on the way out, it is executed the usual way (rows as mappings too).

    Build one per statement and keep it (module level or ``functools.cache``).
    """

    def __init__(self, statement: Select[Any]) -> None:
        self.statement = statement
        self._forms: dict[str, _DriverForm | None] = {}

    def driver_form(self, dialect: Dialect) -> _DriverForm | None:
        """The SQL text and the parameter order (each with its conversion) for the driver;
        ``None`` (read the usual way) on other databases than PostgreSQL, and when this
        statement's rows need SQLAlchemy's conversion."""
        if dialect.name != "postgresql":
            return None
        if dialect.name not in self._forms:
            self._forms[dialect.name] = _driver_form(self.statement, dialect)
        return self._forms[dialect.name]

    async def mappings(self, session: AsyncSession, params: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
        """The rows for these parameters."""
        connection = await session.connection()
        form = self.driver_form(connection.dialect)
        if form is None:
            result = await connection.execute(self.statement, dict(params))
            found: Sequence[Mapping[str, Any]] = result.mappings().all()
            return found
        sql, order = form
        arguments = [params[name] if convert is None else convert(params[name]) for name, convert in order]
        raw = await connection.get_raw_connection()
        rows: Sequence[Mapping[str, Any]] = await raw.driver_connection.fetch(sql, *arguments)  # type: ignore[union-attr]
        return rows


def _driver_form(statement: Select[Any], dialect: Dialect) -> _DriverForm | None:
    if any(_converted(column, dialect) for column in statement.selected_columns):
        return None
    compiled = statement.compile(dialect=dialect)
    if compiled.literal_execute_params or compiled.post_compile_params or compiled.positiontup is None:
        return None  # rendered per execution: nothing to keep
    converters: Mapping[str, Any] = compiled._bind_processors  # one callable per parameter here
    return compiled.string, tuple((name, converters.get(name)) for name in compiled.positiontup)


def _converted(column: ColumnElement[Any], dialect: Dialect) -> bool:
    """Whether SQLAlchemy converts this column's values from what the driver returns."""
    kind = column.type
    if isinstance(kind, TypeDecorator) and dialect.name in getattr(kind, "values_final_on", ()):
        return False
    if isinstance(kind, Numeric | Float):
        # Converted or not by the database's type of the values: known when it is the
        # declared one (a table's column, a CAST): a float for Float, a numeric otherwise.
        element = column.element if isinstance(column, Label) else column
        if not isinstance(element, Column | Cast):
            return True
        return isinstance(kind, Float) == bool(kind.asdecimal)
    return kind.dialect_impl(dialect).result_processor(dialect, None) is not None
