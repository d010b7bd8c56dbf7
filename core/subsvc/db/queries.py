"""Statement pieces that read the same on SQLite and PostgreSQL but cost less on the latter."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Sized
from typing import Any, TypeAlias, cast

from sqlalchemy import (
    Cast,
    Column,
    ColumnElement,
    Delete,
    Float,
    Insert,
    Label,
    Numeric,
    Select,
    Update,
    any_,
    bindparam,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.types import TypeDecorator
from sqlalchemy.util import await_only

SHORT_LIST = 8
"""The longest list :func:`in_list` binds one parameter per item on PostgreSQL (``short``)."""


def is_short(values: Sized) -> bool:
    """Whether a list is short enough for ``in_list(..., short=True)``."""
    return len(values) <= SHORT_LIST


def in_list(
    column: ColumnElement[Any], name: str, dialect: str, *, short: bool = False
) -> ColumnElement[bool]:
    """``column`` is one of the list passed as parameter ``name``.

    On PostgreSQL one array parameter (``column = ANY(:name)``): the statement text is the same
    for every length, so it is compiled and prepared once. PostgreSQL plans such a statement
    anew at every execution, though (its generic plan guesses ten elements and never beats the
    custom one), which costs more than running it for a lookup of a row or two. So a statement
    built with ``short=True``, for lists of at most :data:`SHORT_LIST` items (:func:`is_short`),
    gets an expanding ``IN``, one parameter per item, as on other databases: one statement
    text per length, each planned once and kept. Build statements that use it once per
    dialect (and ``short``).
    """
    if dialect == "postgresql" and not short:
        return column == any_(bindparam(name, type_=ARRAY(column.type)))
    return column.in_(bindparam(name, expanding=True))


_Argument = tuple[str, int | None, Callable[[Any], Any] | None]
"""Where a positional argument comes from: a parameter, the item of a list parameter bound
one per item (or ``None``), and its conversion."""
_DriverForm = tuple[str, tuple[_Argument, ...]]
_NOT_COMPILED: Any = object()
Prebuilt: TypeAlias = "Select[Any] | Insert | Update | Delete"


class DriverStatement:
    """A prebuilt statement that PostgreSQL's driver (asyncpg) runs directly.

    SQLAlchemy's execution and result layers cost several times the CPU of a simple query
    (bench/README.md). On PostgreSQL the statement is compiled once (and rendered once per
    length of an expanding list parameter) and handed to asyncpg on the session's own
    connection, its parameters converted as SQLAlchemy would. Elsewhere, or when SQLAlchemy
    would convert a returned column's values, it is executed the usual way.

    The statement names all its values (bind parameters, literals; an INSERT its ``values``),
    since it is compiled without them. Build one per statement and keep it (module level or
    ``functools.cache``).
    """

    def __init__(self, statement: Prebuilt) -> None:
        self.statement = statement
        self._compiled: Any = _NOT_COMPILED  # for PostgreSQL; None: run the usual way
        self._expanding: tuple[str, ...] = ()
        self._constants: dict[str, Any] = {}  # the values of literals (anonymous parameters)
        self._forms: dict[tuple[int, ...], _DriverForm] = {}

    def driver_form(self, dialect: Dialect, params: Mapping[str, Any]) -> _DriverForm | None:
        """The SQL text and where each positional argument comes from, for these parameters
        (only the lengths of expanding lists matter); ``None`` (run the usual way) on other
        databases than PostgreSQL, and when this statement's rows need SQLAlchemy's
        conversion."""
        if dialect.name != "postgresql":
            return None
        if self._compiled is _NOT_COMPILED:
            self._compiled = _compile(self.statement, dialect)
            if self._compiled is not None:
                self._expanding = tuple(sorted(bind.key for bind in self._compiled.post_compile_params))
                self._constants = {
                    name: bind.effective_value
                    for bind, name in self._compiled.bind_names.items()
                    if not bind.required
                }
        if self._compiled is None:
            return None
        lengths = tuple(len(params[name]) for name in self._expanding)
        form = self._forms.get(lengths)
        if form is None:
            form = _driver_form(self._compiled, dict(zip(self._expanding, lengths, strict=True)))
            if len(self._forms) < MAX_FORMS:
                self._forms[lengths] = form
        return form

    def arguments(self, order: Sequence[_Argument], params: Mapping[str, Any]) -> list[Any]:
        """The positional arguments of a :meth:`driver_form` for these parameters."""
        arguments = []
        for name, item, convert in order:
            if item is not None:
                value = params[name][item]
            else:
                value = params[name] if name in params else self._constants[name]
            arguments.append(value if convert is None else convert(value))
        return arguments


class DriverSelect(DriverStatement):
    """A prebuilt SELECT whose rows come back as the driver's records (mappings by column
    label), read inside the session's transaction if one has begun."""

    async def mappings(self, session: AsyncSession, params: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
        """The rows for these parameters."""
        connection = await session.connection()
        form = self.driver_form(connection.dialect, params)
        if form is None:
            result = await connection.execute(self.statement, dict(params))
            return cast(Sequence[Mapping[str, Any]], result.mappings().all())
        sql, order = form
        driver: Any = (await connection.get_raw_connection()).driver_connection
        rows: Sequence[Mapping[str, Any]] = await driver.fetch(sql, *self.arguments(order, params))
        return rows


class DriverWrite(DriverStatement):
    """A prebuilt INSERT, UPDATE or DELETE run from synchronous code inside an
    ``AsyncSession``'s transaction (a session event such as ``before_commit``).

    Straight to the driver only once the transaction has begun on the connection (a statement
    ran before it in the transaction); otherwise SQLAlchemy runs it, and begins the transaction.
    """

    def run(self, session: Session, params: Mapping[str, Any]) -> int:
        """Run the statement with these parameters in ``session``'s transaction; how many rows
        it wrote."""
        connection, form = self._prepared(session, params)
        if form is None:
            return int(connection.execute(self.statement, dict(params)).rowcount)
        sql, order = form
        driver: Any = connection.connection.driver_connection
        status: str = await_only(driver.execute(sql, *self.arguments(order, params)))
        return int(status.rsplit(" ", 1)[-1])

    def rows(self, session: Session, params: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
        """Run the statement (with ``RETURNING``) in ``session``'s transaction; the rows it
        returned, as tuples in the order of its returned columns."""
        connection, form = self._prepared(session, params)
        if form is None:
            return connection.execute(self.statement, dict(params)).all()
        sql, order = form
        driver: Any = connection.connection.driver_connection
        rows: Sequence[Sequence[Any]] = await_only(driver.fetch(sql, *self.arguments(order, params)))
        return rows

    def _prepared(self, session: Session, params: Mapping[str, Any]) -> tuple[Connection, _DriverForm | None]:
        connection = session.connection()
        if getattr(connection.connection.dbapi_connection, "_transaction", None) is None:
            return connection, None  # not begun (or not asyncpg): SQLAlchemy begins it
        return connection, self.driver_form(connection.dialect, params)


MAX_FORMS = 2 * SHORT_LIST
"""Forms kept per statement: its expanding lists' lengths come from short lists."""


def _compile(statement: Prebuilt, dialect: Dialect) -> SQLCompiler | None:
    if any(_converted(column, dialect) for column in statement.exported_columns):
        return None
    compiled = statement.compile(dialect=dialect)
    if (
        compiled.literal_execute_params
        or not isinstance(compiled, SQLCompiler)
        or compiled.positiontup is None
    ):
        return None  # rendered per execution: nothing to keep
    return compiled


def _driver_form(compiled: SQLCompiler, lengths: Mapping[str, int]) -> _DriverForm:
    """The statement with each expanding list of ``lengths`` rendered one parameter per item."""
    assert compiled.positiontup is not None
    values: dict[str, Any] = dict.fromkeys(compiled.positiontup)
    values.update({name: [None] * length for name, length in lengths.items()})
    expanded = compiled.construct_expanded_state(values)
    source = {
        item_name: (name, index)
        for name, item_names in expanded.parameter_expansion.items()
        for index, item_name in enumerate(item_names)
    }
    # one callable per parameter here; the items' own are the expanded state's
    converters: Mapping[str, Any] = {**compiled._bind_processors, **expanded.processors}
    assert expanded.positiontup is not None
    order = tuple((*source.get(name, (name, None)), converters.get(name)) for name in expanded.positiontup)
    return expanded.statement, order


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
