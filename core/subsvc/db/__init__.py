"""Data layer: the async engine and per-request sessions, column types, migrations."""

from subsvc.db.database import Database, is_database_unavailable
from subsvc.db.queries import DriverSelect, DriverWrite, in_list, is_short
from subsvc.db.types import UTCDateTime, utcnow

__all__ = [
    "Database",
    "DriverSelect",
    "DriverWrite",
    "UTCDateTime",
    "in_list",
    "is_database_unavailable",
    "is_short",
    "utcnow",
]
