"""The subscription table and the traffic purchases made on a subscription."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, ForeignKey, Index, Integer, String, Text, text
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

SHORT_ID_LENGTH = 8
PANEL_SYNC_PENDING = "pending"
PANEL_SYNC_SYNCED = "synced"
HELD_STATUSES = ("active", "trial", "limited")
"""Stored statuses in which a subscription holds its tariff: one per (user, tariff)."""


_HELD = "tariff_id IS NOT NULL AND status IN ('active', 'trial', 'limited')"


class Subscription(SQLModel, table=True):
    """A user's access: a period, a traffic limit (0 = unlimited), a device limit and the
    panel squads it connects to. ``status`` is stored; ``actual_status`` is computed on read.

    ``short_id`` is unique (the suffix of the panel user name); ``panel_sync_state`` is
    ``pending`` after every change until the panel integration has pushed it.

    A user holds a tariff once: at most one subscription per ``(user_id, tariff_id)`` in a
    stored status of :data:`HELD_STATUSES` (a partial unique index). A daily subscription is
    one with ``last_daily_charge_at`` set (charged every 24 h from it).
    """

    __tablename__ = "subscriptions"
    __table_args__ = (
        Index("ix_subscriptions_user_id_created_at", "user_id", "created_at"),
        Index("ix_subscriptions_status_created_at", "status", "created_at"),
        Index("ix_subscriptions_end_date", "end_date"),
        Index("ix_subscriptions_created_at_id", "created_at", "id"),
        Index(
            "uq_subscriptions_user_tariff_live",
            "user_id",
            "tariff_id",
            unique=True,
            postgresql_where=text(_HELD),
            sqlite_where=text(_HELD),
        ),
        Index(
            "ix_subscriptions_autopay_due",
            "end_date",
            postgresql_where=text("autopay_enabled"),
            sqlite_where=text("autopay_enabled"),
        ),
        Index(
            "ix_subscriptions_daily_due",
            "last_daily_charge_at",
            postgresql_where=text("last_daily_charge_at IS NOT NULL"),
            sqlite_where=text("last_daily_charge_at IS NOT NULL"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    status: str = Field(default="active", max_length=20)
    is_trial: bool = False
    start_date: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    end_date: datetime = Field(sa_type=UTCDateTime)
    traffic_limit_gb: int = 0
    traffic_used_gb: float = 0.0
    purchased_traffic_gb: int = 0
    device_limit: int = 1
    connected_squads: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    autopay_enabled: bool = False
    autopay_days_before: int | None = 3
    autopay_period_days: int | None = None
    is_daily_paused: bool = False
    last_daily_charge_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    subscription_url: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    subscription_crypto_link: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    tariff_id: int | None = None  # no foreign key yet: the tariffs plugin comes later
    short_id: str = Field(sa_column=Column(String(SHORT_ID_LENGTH), nullable=False, unique=True))
    panel_sync_state: str = Field(default=PANEL_SYNC_PENDING, max_length=16)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class TrafficPurchase(SQLModel, table=True):
    """Traffic added to a subscription; it counts until ``expires_at``."""

    __tablename__ = "traffic_purchases"

    id: int | None = Field(default=None, primary_key=True)
    subscription_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("subscriptions.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    traffic_gb: int
    expires_at: datetime = Field(sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
