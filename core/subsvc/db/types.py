"""Column types shared by every plugin's models."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every database.

    PostgreSQL stores ``timestamptz``; SQLite stores text without an offset, so values are
    normalised to UTC on the way in and marked UTC on the way out. Naive input is refused.
    """

    impl = DateTime(timezone=True)
    cache_ok = True
    # asyncpg already returns ``timestamptz`` aware in UTC: reading straight from the driver
    # gives what this type returns (``subsvc.db.queries.DriverSelect``).
    values_final_on: ClassVar[frozenset[str]] = frozenset({"postgresql"})

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given; use timezone-aware UTC")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        moment: datetime = value
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
