"""The webhook endpoints and their delivery attempts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, ForeignKey, Index, Integer, String, Text
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

PENDING = "pending"
SUCCESS = "success"
FAILED = "failed"
ANY_EVENT = "*"
# The columns an attempt is inserted with (the first from an event, each retry from the last).
ATTEMPT_COLUMNS = (
    "webhook_id",
    "event_id",
    "delivery_key",
    "event_type",
    "payload",
    "status",
    "attempt_number",
    "created_at",
    "next_retry_at",
)


class Webhook(SQLModel, table=True):
    """An endpoint that receives the events of one type (or of every type: ``*``).

    ``failing_since`` is the start of the current run of failed attempts (null after a
    success); a webhook failing for longer than ``WEBHOOK_DEACTIVATE_AFTER_SECONDS`` is
    deactivated with ``deactivated_at`` and ``deactivation_reason`` set.
    """

    __tablename__ = "webhooks"
    __table_args__ = (Index("ix_webhooks_is_active_event_type", "is_active", "event_type"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_type=String(255))
    url: str = Field(sa_type=Text)
    event_type: str = Field(sa_type=String(50))
    secret: str | None = Field(default=None, sa_type=String(128))
    description: str | None = Field(default=None, sa_type=Text)
    is_active: bool = True
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    last_triggered_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    success_count: int = 0
    failure_count: int = 0
    failing_since: datetime | None = Field(default=None, sa_type=UTCDateTime)
    deactivated_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    deactivation_reason: str | None = Field(default=None, sa_type=Text)


class WebhookDelivery(SQLModel, table=True):
    """One attempt to deliver one event to one webhook.

    A ``pending`` row waits for ``next_retry_at``; once sent it becomes ``success`` or
    ``failed``. A failed attempt with attempts left keeps in ``next_retry_at`` the time of
    the next one, which is a new pending row with ``attempt_number + 1`` and the same
    ``delivery_key`` (the ``X-Webhook-Delivery`` header receivers de-duplicate with).
    """

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index("ix_webhook_deliveries_webhook_id_id", "webhook_id", "id"),
        Index("ix_webhook_deliveries_status_next_retry_at", "status", "next_retry_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    webhook_id: int = Field(
        sa_column=Column(Integer, ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False)
    )
    event_id: int | None = Field(default=None, description="The outbox event's id.")
    delivery_key: str = Field(sa_type=String(64))
    event_type: str = Field(sa_type=String(100))
    payload: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    status: str = Field(default=PENDING, sa_type=String(20))
    attempt_number: int = 1
    response_status: int | None = None
    response_body: str | None = Field(default=None, sa_type=Text)
    error_message: str | None = Field(default=None, sa_type=Text)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    delivered_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    next_retry_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


WEBHOOKS = SQLModel.metadata.tables[Webhook.__tablename__]
DELIVERIES = SQLModel.metadata.tables[WebhookDelivery.__tablename__]
