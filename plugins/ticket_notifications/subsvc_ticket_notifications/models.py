"""The plugin's tables: in-app notifications, each administrator's read state, the messenger
deliveries waiting to be sent, and the SLA reminders sent."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import JSON, Column, ForeignKey, Index, Integer, String, Text
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

# notification_type
NEW_TICKET, USER_REPLY, ADMIN_REPLY = "new_ticket", "user_reply", "admin_reply"
# kind of a messenger delivery
USER_NOTICE, ADMIN_NEW_TICKET, ADMIN_USER_REPLY = "user_notice", "admin_new_ticket", "admin_user_reply"
# status of a messenger delivery
PENDING, SENT, SKIPPED, FAILED = "pending", "sent", "skipped", "failed"

_ADMIN_ROWS = sa.text("is_for_admin")


def _ticket_id() -> Any:
    return Field(sa_column=Column(Integer, ForeignKey("tickets.id", ondelete="CASCADE"), nullable=False))


def _user_id(**options: Any) -> Any:
    return Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, **options)
    )


class TicketNotification(SQLModel, table=True):
    """An in-app notification: for the ticket's owner (``admin_reply``) or for every
    administrator (``new_ticket``, ``user_reply``; ``user_id`` is still the ticket's owner).
    ``is_read``/``read_at`` hold the owner's read state; administrators' is their own
    (:class:`AdminReadMark`, :class:`AdminRead`)."""

    __tablename__ = "ticket_notifications"
    __table_args__ = (
        # the user's list and unread count
        Index("ix_ticket_notifications_user", "user_id", "is_for_admin", "is_read", "id"),
        # the administrators' rows by id: list, and unread count above a mark (a range)
        Index(
            "ix_ticket_notifications_admin_id", "id", postgresql_where=_ADMIN_ROWS, sqlite_where=_ADMIN_ROWS
        ),
        Index("ix_ticket_notifications_ticket", "ticket_id", "is_for_admin", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    ticket_id: int = _ticket_id()
    user_id: int = _user_id()
    notification_type: str = Field(sa_type=String(20))
    message: str | None = Field(default=None, sa_type=Text)
    is_for_admin: bool = False
    is_read: bool = False
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    read_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class AdminReadMark(SQLModel, table=True):
    """One administrator has read every admin notification up to ``read_up_to_id``."""

    __tablename__ = "ticket_notification_admin_marks"

    admin_user_id: int = _user_id(primary_key=True)
    read_up_to_id: int = 0
    marked_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class AdminRead(SQLModel, table=True):
    """One administrator has read one admin notification above their mark."""

    __tablename__ = "ticket_notification_admin_reads"

    admin_user_id: int = _user_id(primary_key=True)
    notification_id: int = Field(
        sa_column=Column(
            Integer,
            ForeignKey("ticket_notifications.id", ondelete="CASCADE"),
            primary_key=True,
            nullable=False,
        )
    )
    read_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class MessengerDelivery(SQLModel, table=True):
    """A messenger message to send for a ticket event: written with the event, sent by a job.

    ``due_at``: when it may be tried (again); a sender claims it by moving ``due_at`` forward
    (a lease), so one sender at a time holds it. ``event_id`` is unique: one per event."""

    __tablename__ = "ticket_messenger_deliveries"
    __table_args__ = (Index("ix_ticket_messenger_deliveries_due", "status", "due_at"),)

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(sa_column=Column(sa.BigInteger, nullable=False, unique=True))
    kind: str = Field(sa_type=String(20))
    ticket_id: int = _ticket_id()
    user_id: int = Field(sa_type=Integer)
    payload: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    status: str = Field(default=PENDING, sa_type=String(10))
    attempts: int = 0
    due_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    sent_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    error: str | None = Field(default=None, sa_type=Text)


class SlaReminder(SQLModel, table=True):
    """The last SLA reminder sent for a ticket (one row per ticket)."""

    __tablename__ = "ticket_sla_reminders"

    ticket_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("tickets.id", ondelete="CASCADE"), primary_key=True, nullable=False
        )
    )
    reminded_at: datetime = Field(sa_type=UTCDateTime)
