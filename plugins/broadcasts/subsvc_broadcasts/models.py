"""A broadcast and its recipients (one row each, with the state of its message)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

# status of a broadcast
SCHEDULED, QUEUED, IN_PROGRESS = "scheduled", "queued", "in_progress"
CANCELLING, CANCELLED, COMPLETED = "cancelling", "cancelled", "completed"
STOPPABLE = (SCHEDULED, QUEUED, IN_PROGRESS, CANCELLING)
# state of a recipient's message
PENDING, SENDING, SENT, BLOCKED, FAILED, UNKNOWN = (
    "pending",
    "sending",
    "sent",
    "blocked",
    "failed",
    "unknown",
)


class Broadcast(SQLModel, table=True):
    """A message to a segment, and how far it got.

    ``status``: ``scheduled`` (waits for ``send_at``) or ``queued`` -> ``in_progress`` ->
    ``completed``; a stop makes it ``cancelling`` (a sender is at work) then ``cancelled``.
    ``lease_owner``/``lease_until``: the one sender at work on it. ``custom_buttons``: the
    administrator's own buttons (``{label, action_type, action_value, icon_custom_emoji_id}``);
    ``category``: ``system``, ``news`` or ``promo``."""

    __tablename__ = "broadcasts"
    __table_args__ = (
        Index("ix_broadcasts_created_at_id", "created_at", "id"),
        Index("ix_broadcasts_status_send_at", "status", "send_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    target_type: str = Field(sa_type=String(100))
    message_text: str | None = Field(default=None, sa_type=Text)
    has_media: bool = False
    media_type: str | None = Field(default=None, sa_type=String(20))
    media_file_id: str | None = Field(default=None, sa_type=String(512))
    media_caption: str | None = Field(default=None, sa_type=Text)
    selected_buttons: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    custom_buttons: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False, server_default=text("'[]'"))
    )
    category: str = Field(
        default="system", sa_column=Column(String(20), nullable=False, server_default="system")
    )
    channel: str = Field(default="telegram", sa_type=String(20))
    status: str = Field(default=QUEUED, sa_type=String(20))
    total_count: int = 0
    sent_count: int = 0
    failed_count: int = 0
    blocked_count: int = 0
    unknown_count: int = 0
    admin_id: int | None = Field(default=None, sa_type=Integer)
    admin_name: str | None = Field(default=None, sa_type=String(255))
    send_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    lease_owner: str | None = Field(default=None, sa_type=String(64))
    lease_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    completed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class BroadcastRecipient(SQLModel, table=True):
    """One user's message of a broadcast: ``pending``, ``sending`` (claimed by a sender, which
    records the outcome after the call), then ``sent``, ``blocked``, ``failed``, or ``unknown``
    (claimed by a sender that died: it may or may not have gone, and it is never sent again)."""

    __tablename__ = "broadcast_recipients"
    __table_args__ = (
        UniqueConstraint("broadcast_id", "user_id", name="uq_broadcast_recipients_user"),
        Index("ix_broadcast_recipients_state", "broadcast_id", "state", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    broadcast_id: int = Field(
        sa_column=Column(Integer, ForeignKey("broadcasts.id", ondelete="CASCADE"), nullable=False)
    )
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    messenger_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    state: str = Field(default=PENDING, sa_type=String(10))
    error: str | None = Field(default=None, sa_type=String(255))
    sent_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


MODELS: list[Any] = [Broadcast, BroadcastRecipient]
BROADCASTS = SQLModel.metadata.tables["broadcasts"]
RECIPIENTS = SQLModel.metadata.tables["broadcast_recipients"]
