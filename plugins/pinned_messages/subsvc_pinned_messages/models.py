"""The tables: pinned messages (at most one active), and their runs — a broadcast (send and
pin) or an unpin in every reachable user's chat — with one row per recipient."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

ACTIVE = text("is_active")
BROADCAST = "broadcast"
UNPIN = "unpin"


def _fk(target: str, ondelete: str, *, nullable: bool) -> Any:
    return Column(Integer, ForeignKey(target, ondelete=ondelete), nullable=nullable)


class PinnedMessage(SQLModel, table=True):
    """A message shown at /start; a partial unique index keeps at most one active."""

    __tablename__ = "pinned_messages"
    __table_args__ = (
        Index(
            "uq_pinned_messages_active",
            "is_active",
            unique=True,
            sqlite_where=ACTIVE,
            postgresql_where=ACTIVE,
        ),
        Index("ix_pinned_messages_created_at", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    content: str = Field(default="", sa_type=Text)
    media_type: str | None = Field(default=None, sa_type=String(10))
    media_file_id: str | None = Field(default=None, sa_type=String(255))
    send_before_menu: bool = True
    send_on_every_start: bool = True
    is_active: bool = False
    created_by: int | None = Field(default=None, sa_column=_fk("users.id", "SET NULL", nullable=True))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime | None = Field(default_factory=utcnow, sa_type=UTCDateTime)


class PinnedMessageRun(SQLModel, table=True):
    """A broadcast or an unpin of one message to every reachable user, and how far it got.

    ``status``: ``queued`` -> ``running`` -> ``completed``, or ``cancelled`` (a later run took
    over, or the message was deleted). The sender holds a lease (``lease_until``) while it
    works; after a crash another worker takes the run over once the lease has run out. What
    is sent (``content``, media) is kept here, so an edit of the message does not change a
    broadcast under way."""

    __tablename__ = "pinned_message_runs"
    __table_args__ = (Index("ix_pinned_message_runs_status", "status"),)

    id: int | None = Field(default=None, primary_key=True)
    message_id: int | None = Field(
        default=None, sa_column=_fk("pinned_messages.id", "SET NULL", nullable=True)
    )
    kind: str = Field(default=BROADCAST, sa_type=String(10))
    content: str = Field(default="", sa_type=Text)
    media_type: str | None = Field(default=None, sa_type=String(10))
    media_file_id: str | None = Field(default=None, sa_type=String(255))
    status: str = Field(default="queued", sa_type=String(20))
    total_count: int = 0
    sent_count: int = 0
    failed_count: int = 0
    blocked_count: int = 0
    created_by: int | None = Field(default=None, sa_column=_fk("users.id", "SET NULL", nullable=True))
    lease_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    completed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class PinnedMessageDelivery(SQLModel, table=True):
    """One recipient of a run: ``pending``; ``sending`` while its calls are under way (committed
    before the first call); then ``sent``, ``failed``, ``blocked`` (the chat refuses the bot),
    ``skipped`` (the run was cancelled first) or ``unknown`` (its sender died during the calls:
    never tried again, so nobody gets the message twice)."""

    __tablename__ = "pinned_message_deliveries"
    __table_args__ = (
        UniqueConstraint("run_id", "user_id", name="uq_pinned_message_deliveries_run_user"),
        Index("ix_pinned_message_deliveries_state", "run_id", "state", "id"),
        Index("ix_pinned_message_deliveries_user_id", "user_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(sa_column=_fk("pinned_message_runs.id", "CASCADE", nullable=False))
    user_id: int = Field(sa_column=_fk("users.id", "CASCADE", nullable=False))
    messenger_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    state: str = Field(default="pending", sa_type=String(10))
    chat_message_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    error: str | None = Field(default=None, sa_type=String(255))
    done_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


MODELS: list[type[SQLModel]] = [PinnedMessage, PinnedMessageRun, PinnedMessageDelivery]

MESSAGES: Table = SQLModel.metadata.tables["pinned_messages"]
RUNS: Table = SQLModel.metadata.tables["pinned_message_runs"]
DELIVERIES: Table = SQLModel.metadata.tables["pinned_message_deliveries"]
