"""Data layer: the async engine and per-request sessions, column types, migrations, storable
values, new records and batches written apart when refused."""

from subsvc.db.database import Database, is_database_unavailable
from subsvc.db.queries import DriverSelect, DriverWrite, in_list, is_short
from subsvc.db.records import add_new, once_after_commit, page_of
from subsvc.db.storable import (
    Refused,
    error_unstored,
    is_refusal,
    refusal_reason,
    storable,
    storable_row,
    unstored,
    write_batch,
)
from subsvc.db.types import UTCDateTime, utcnow

__all__ = [
    "Database",
    "DriverSelect",
    "DriverWrite",
    "Refused",
    "UTCDateTime",
    "add_new",
    "error_unstored",
    "in_list",
    "is_database_unavailable",
    "is_refusal",
    "is_short",
    "once_after_commit",
    "page_of",
    "refusal_reason",
    "storable",
    "storable_row",
    "unstored",
    "utcnow",
    "write_batch",
]
