"""What administrators set on a user that the user row does not hold: restrictions, an
individual referral commission, and the user's VPN panel link as the last sync found it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Column, ForeignKey, Integer, String, Text
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow


class UserAdminSettings(SQLModel, table=True):
    """One row per user that an administrator restricted, gave a commission, or synced with
    the panel; a user without a row has no restrictions and the default commission."""

    __tablename__ = "user_admin_settings"

    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    )
    restriction_topup: bool = False
    restriction_subscription: bool = False
    restriction_reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    referral_commission_percent: int | None = None
    panel_uuid: str | None = Field(default=None, sa_column=Column(String(64), nullable=True))
    last_panel_sync: datetime | None = Field(default=None, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class DeviceName(SQLModel, table=True):
    """An administrator's local name for a device (hardware id) of one subscription."""

    __tablename__ = "admin_device_names"

    subscription_id: int = Field(
        sa_column=Column(Integer, ForeignKey("subscriptions.id", ondelete="CASCADE"), primary_key=True)
    )
    hwid: str = Field(sa_column=Column(String(255), primary_key=True))
    name: str = Field(sa_column=Column(String(64), nullable=False))
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class UserMessage(SQLModel, table=True):
    """A message an administrator sends a user through the bot: the job's work. ``status``:
    ``pending`` (to send; ``attempts`` so far), ``sent``, ``blocked`` (the user blocked the
    bot: not retried) or ``failed`` (the messenger refused it, or the attempts ran out)."""

    __tablename__ = "admin_user_messages"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    chat_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    text: str = Field(sa_column=Column(Text, nullable=False))
    status: str = Field(default="pending", sa_column=Column(String(16), nullable=False, index=True))
    attempts: int = 0
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    sent_by: int | None = None
    message_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    next_attempt_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    sent_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
