"""The tables as Core objects, and the two statements the dialects spell differently."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc_ticket_notifications.models import (
    AdminRead,
    AdminReadMark,
    MessengerDelivery,
    SlaReminder,
    TicketNotification,
)

NOTIFICATIONS: sa.Table = TicketNotification.__table__  # type: ignore[attr-defined]
MARKS: sa.Table = AdminReadMark.__table__  # type: ignore[attr-defined]
READS: sa.Table = AdminRead.__table__  # type: ignore[attr-defined]
DELIVERIES: sa.Table = MessengerDelivery.__table__  # type: ignore[attr-defined]
REMINDERS: sa.Table = SlaReminder.__table__  # type: ignore[attr-defined]


def upsert(session: AsyncSession | Session, table: sa.Table) -> Any:
    """An ``INSERT`` of ``table`` that takes ``ON CONFLICT`` (PostgreSQL or SQLite)."""
    dialect = session.get_bind().dialect.name
    return (postgresql if dialect == "postgresql" else sqlite).insert(table)


async def run(session: AsyncSession, statement: Any, params: Any = None) -> Any:
    """Run a Core statement on the session (SQLModel's ``exec`` types only ``select``)."""
    return await session.exec(statement, params=params)
