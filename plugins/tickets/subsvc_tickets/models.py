"""Tables: ``tickets`` (one conversation of a user with support) and ``ticket_messages``.

A partial unique index keeps one active (not ``closed``) ticket per user, whatever races;
every list order (``updated_at`` desc, ``id`` desc, within a filter or not) has an index.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, ForeignKey, Index, Integer, String, Text, text
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

ACTIVE = text("status <> 'closed'")
TITLE_LENGTH = 255
FILE_ID_LENGTH = 255


def _fk(target: str, ondelete: str, *, nullable: bool) -> Any:
    return Column(Integer, ForeignKey(target, ondelete=ondelete), nullable=nullable)


class Ticket(SQLModel, table=True):
    """A user's support ticket; ``status`` follows the machine of :mod:`subsvc_tickets.service`."""

    __tablename__ = "tickets"
    __table_args__ = (
        Index("uq_tickets_user_active", "user_id", unique=True, sqlite_where=ACTIVE, postgresql_where=ACTIVE),
        Index("ix_tickets_updated_at_id", "updated_at", "id"),
        Index("ix_tickets_user_updated_at_id", "user_id", "updated_at", "id"),
        Index("ix_tickets_status_updated_at_id", "status", "updated_at", "id"),
        Index("ix_tickets_priority_updated_at_id", "priority", "updated_at", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(sa_column=_fk("users.id", "CASCADE", nullable=False))
    title: str = Field(sa_type=String(TITLE_LENGTH))
    status: str = Field(default="open", sa_type=String(20))
    priority: str = Field(default="normal", sa_type=String(20))
    user_reply_block_permanent: bool = False
    user_reply_block_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    closed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)

    def is_reply_blocked(self, now: datetime) -> bool:
        """Permanently blocked, or blocked until a moment still to come."""
        until = self.user_reply_block_until
        return self.user_reply_block_permanent or (until is not None and until > now)


class TicketMessage(SQLModel, table=True):
    """One message of a ticket. The author: ``author_user_id`` (the owner, or the cabinet
    administrator who replied), else ``author_token_id``/``author_name`` (the API token)."""

    __tablename__ = "ticket_messages"
    __table_args__ = (Index("ix_ticket_messages_ticket_id_id", "ticket_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    ticket_id: int = Field(sa_column=_fk("tickets.id", "CASCADE", nullable=False))
    author_user_id: int | None = Field(default=None, sa_column=_fk("users.id", "SET NULL", nullable=True))
    author_token_id: int | None = None
    author_name: str | None = Field(default=None, sa_type=String(255))
    message_text: str = Field(default="", sa_type=Text)
    is_from_admin: bool = False
    has_media: bool = False
    media_type: str | None = Field(default=None, sa_type=String(32))
    media_file_id: str | None = Field(default=None, sa_type=String(FILE_ID_LENGTH))
    media_caption: str | None = Field(default=None, sa_type=Text)
    media_items: list[dict[str, Any]] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
