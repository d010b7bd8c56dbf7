"""Request and response models of the notification operations (the reference's shapes)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict


class TicketNotificationResponse(BaseModel):
    """Single ticket notification."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    ticket_id: int
    notification_type: str
    message: str | None = None
    is_read: bool
    created_at: datetime
    read_at: datetime | None = None


class TicketNotificationListResponse(BaseModel):
    """List of ticket notifications."""

    items: list[TicketNotificationResponse]
    unread_count: int


class UnreadCountResponse(BaseModel):
    """Unread notifications count."""

    unread_count: int


class SuccessResponse(BaseModel):
    """A mark-as-read done."""

    success: bool = True


class MarkedResponse(SuccessResponse):
    """A bulk mark-as-read done, and how many notifications it marked."""

    marked_count: int
