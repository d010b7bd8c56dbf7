"""Values every database stores, and batches in which one refused row costs only itself.

:func:`storable` makes a text or a JSON value storable: a NUL character, which PostgreSQL's
text and JSON refuse, and a lone surrogate, which no UTF-8 text holds (a JSON escape can
make one), become U+FFFD (in texts and in keys); NaN and the infinities, which JSON has not,
become the texts ``NaN``, ``Infinity`` and ``-Infinity``; a text may be clipped to its
column's length. :func:`storable_row` does so for a row of a table.

:func:`write_batch` writes many rows (outcomes, audit rows...) in one transaction and, when the
database refuses them (:func:`is_refusal`: not for being unreachable), each alone: a row
refused alone may be written as a stand-in (say, without the value refused); the others are
written whatever it holds.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from sqlalchemy import JSON, Table
from sqlalchemy.exc import SQLAlchemyError

from subsvc.db.database import is_database_unavailable

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

log = logging.getLogger("subsvc.db")
T = TypeVar("T")
R = TypeVar("R")
D = TypeVar("D", bound="DataclassInstance")
REPLACEMENT = "\ufffd"  # the Unicode replacement character
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")  # NUL, lone surrogates
REASON_CHARS = 300


def _text(value: str) -> str:
    return UNSTORABLE.sub(REPLACEMENT, value)


def _json(value: Any) -> Any:
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, Mapping):
        return {_text(str(key)): _json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json(item) for item in value]
    return _text(str(value))


@overload
def storable(value: str, limit: int | None = None) -> str: ...
@overload
def storable(value: None, limit: int | None = None) -> None: ...
@overload
def storable(value: object, limit: int | None = None) -> Any: ...
def storable(value: object, limit: int | None = None) -> Any:
    """``value`` (a text or a JSON value) as every database stores it: NUL characters and lone
    surrogates (keys too) as U+FFFD, NaN and the infinities as ``"NaN"``, ``"Infinity"``,
    ``"-Infinity"``, anything JSON has no form for as its text. A text is clipped to ``limit``
    characters."""
    if isinstance(value, str):
        value = _text(value)
        return value if limit is None or len(value) <= limit else value[:limit]
    return _json(value)


def storable_row(values: Mapping[str, Any], table: Table) -> dict[str, Any]:
    """The row with each text made storable and clipped to its column's length, and each JSON
    column's value made storable; other values (and names the table lacks) as given."""
    row = dict(values)
    for name, value in row.items():
        column = table.c.get(name)
        if column is None or value is None:
            continue
        if isinstance(column.type, JSON):
            row[name] = _json(value)
        elif isinstance(value, str):
            row[name] = storable(value, getattr(column.type, "length", None))
    return row


def is_refusal(error: BaseException) -> bool:
    """Did the database (or its driver) refuse what was written, rather than being unreachable?
    A SQLAlchemy error, or a driver's error for a value it cannot convert (``ValueError``,
    ``TypeError``, ``ArithmeticError``: SQLite's for an integer beyond 64 bits)."""
    refused = isinstance(error, SQLAlchemyError | ValueError | TypeError | ArithmeticError)
    return refused and not is_database_unavailable(error)


def refusal_reason(error: BaseException) -> str:
    """The database's words for a refusal, on one line and short."""
    return " ".join(str(getattr(error, "orig", None) or error).split())[:REASON_CHARS]


def unstored(what: str, reason: str, limit: int | None = None) -> str:
    """The note stored in place of ``what`` the database refused, with its reason."""
    return storable(f"{what} could not be stored ({reason})", limit)


def error_unstored(what: str, limit: int | None = None) -> Callable[[tuple[R, D], str], tuple[R, D]]:
    """A ``stand_in`` for :func:`write_batch` of ``(row, outcome)`` pairs (``outcome`` a
    dataclass with an ``error``): the outcome's error becomes the note that ``what`` could not
    be stored."""

    def stand_in(item: tuple[R, D], reason: str) -> tuple[R, D]:
        row, outcome = item
        return row, replace(outcome, error=unstored(what, reason, limit))

    return stand_in


@dataclass(frozen=True)
class Refused(Generic[T]):
    """An item the database refused alone: ``reason``, its words; ``stand_in``, what was written
    in its place (``None``: nothing)."""

    item: T
    reason: str
    stand_in: T | None = None


async def _refusal(write: Callable[[list[T]], Awaitable[object]], items: list[T]) -> str | None:
    """``None`` once ``write(items)`` wrote them, the reason if the database refused them."""
    try:
        await write(items)
    except Exception as error:
        if not is_refusal(error):
            raise
        return refusal_reason(error)
    return None


async def write_batch(
    write: Callable[[list[T]], Awaitable[object]],
    items: Iterable[T],
    *,
    stand_in: Callable[[T, str], T | None] | None = None,
    describe: Callable[[T], str] | None = None,
    what: str = "rows",
    logger: logging.Logger = log,
) -> list[Refused[T]]:
    """Write ``items`` with one ``write(items)`` (a transaction of its own); when the database
    refuses them, ``write([item])`` for each, so one item costs only itself. An item refused
    alone is written as ``stand_in(item, reason)`` if that gives one, and logged at ERROR
    (named by ``describe(item)``) if ``describe`` is given.

    Returns the items refused alone. Anything but a refusal is raised as it comes (the
    database unreachable, a lease lost): items written alone before it stay written.
    """
    batch = list(items)
    if len(batch) > 1:
        reason = await _refusal(write, batch)
        if reason is None:
            return []
        logger.warning("%d %s were refused together (%s); writing them one by one", len(batch), what, reason)
    refused: list[Refused[T]] = []
    for item in batch:
        reason = await _refusal(write, [item])
        if reason is None:
            continue
        instead = None if stand_in is None else stand_in(item, reason)
        if instead is not None and await _refusal(write, [instead]) is not None:
            instead = None
        if describe is not None:
            written = "written without what was refused" if instead is not None else "not written"
            logger.error("%s could not be written (%s); %s", describe(item), reason, written)
        refused.append(Refused(item, reason, instead))
    return refused
