"""Reading the audit log: filters, pages newest first, and the CSV export.

CSV cells that a spreadsheet would run as a formula (starting with ``=``, ``+``, ``-``, ``@``,
a tab or a carriage return) get a leading ``'``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_users.api import User

from subsvc.api import fits_int32, from_attributes
from subsvc_rbac.models import AuditLogEntry
from subsvc_rbac.schemas import AuditLogEntryResponse, UTCMoment

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CSV_COLUMNS = (
    "id",
    "created_at",
    "user_id",
    "user_email",
    "user_first_name",
    "action",
    "resource_type",
    "resource_id",
    "status",
    "request_method",
    "request_path",
    "ip_address",
    "user_agent",
    "details",
)


@dataclass(frozen=True)
class AuditFilter:
    user_id: int | None = None
    action: str | None = None  # case-insensitive "contains"
    resource_type: str | None = None
    status: str | None = None
    date_from: UTCMoment | None = None  # inclusive; no offset = UTC
    date_to: UTCMoment | None = None  # inclusive

    def conditions(self) -> list[ColumnElement[bool]] | None:
        """The WHERE conditions, or ``None`` when no row can match."""
        conditions: list[ColumnElement[bool]] = []
        if self.user_id is not None:
            if not fits_int32(self.user_id):
                return None
            conditions.append(col(AuditLogEntry.user_id) == self.user_id)
        if self.action:
            escaped = self.action.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            conditions.append(col(AuditLogEntry.action).ilike(f"%{escaped}%", escape="\\"))
        if self.resource_type is not None:
            conditions.append(col(AuditLogEntry.resource_type) == self.resource_type)
        if self.status is not None:
            conditions.append(col(AuditLogEntry.status) == self.status)
        if self.date_from is not None:
            conditions.append(col(AuditLogEntry.created_at) >= self.date_from)
        if self.date_to is not None:
            conditions.append(col(AuditLogEntry.created_at) <= self.date_to)
        return conditions


async def count(session: AsyncSession, conditions: Sequence[ColumnElement[bool]]) -> int:
    query = select(func.count()).select_from(AuditLogEntry).where(*conditions)
    return (await session.exec(query)).one()


async def entries(
    session: AsyncSession, conditions: Sequence[ColumnElement[bool]], limit: int, offset: int
) -> list[AuditLogEntryResponse]:
    """A page, newest first, with the first name and e-mail of each row's user."""
    query = (
        select(AuditLogEntry, User.first_name, User.email)
        .outerjoin(User, col(User.id) == col(AuditLogEntry.user_id))
        .where(*conditions)
        .order_by(col(AuditLogEntry.created_at).desc(), col(AuditLogEntry.id).desc())
        .offset(offset)
        .limit(limit)
    )
    return [
        from_attributes(AuditLogEntryResponse, entry, user_first_name=first_name, user_email=email)
        for entry, first_name, email in (await session.exec(query)).all()
    ]


def safe_cell(value: Any) -> Any:
    """A CSV cell that no spreadsheet runs as a formula."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict | list):
        value = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def to_csv(items: Iterable[AuditLogEntryResponse]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for item in items:
        writer.writerow([safe_cell(getattr(item, name)) for name in CSV_COLUMNS])
    return buffer.getvalue()
