"""What administrators set on a user that the user row does not hold: restrictions, an
individual referral commission, and the user's VPN panel link as the last sync found it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Integer, String, Text
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
