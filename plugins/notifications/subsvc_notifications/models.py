"""The subscription event log: one row per event the bot reports."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, ForeignKey, Index, Integer, String, Text
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow


class SubscriptionEvent(SQLModel, table=True):
    """A reported subscription event. The user it concerns is required (deleting the user
    deletes its events); the subscription and transaction it names are optional and kept
    as null when those rows are deleted. ``extra`` is null when nothing was given."""

    __tablename__ = "subscription_events"
    __table_args__ = (
        # every list is ordered by (occurred_at, id) descending, within a filter or not
        Index("ix_subscription_events_occurred_at_id", "occurred_at", "id"),
        Index("ix_subscription_events_user_id_occurred_at", "user_id", "occurred_at"),
        Index("ix_subscription_events_event_type_occurred_at", "event_type", "occurred_at"),
        # deleting a subscription or a transaction finds the events that name it
        Index("ix_subscription_events_subscription_id", "subscription_id"),
        Index("ix_subscription_events_transaction_id", "transaction_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    event_type: str = Field(sa_type=String(50))
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    subscription_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("subscriptions.id", ondelete="SET NULL"), nullable=True),
    )
    transaction_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("transactions.id", ondelete="SET NULL"), nullable=True),
    )
    amount_kopeks: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    currency: str | None = Field(default=None, sa_type=String(16))
    message: str | None = Field(default=None, sa_type=Text)
    occurred_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    extra: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
