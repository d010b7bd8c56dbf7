"""The names users give their devices (shared by all of a user's subscriptions)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Integer, String
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

NAME_LENGTH = 64
HWID_LENGTH = 255


class DeviceName(SQLModel, table=True):
    """A user's own name of one of their devices (by its hardware id)."""

    __tablename__ = "device_names"

    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    )
    hwid: str = Field(sa_column=Column(String(HWID_LENGTH), primary_key=True))
    name: str = Field(max_length=NAME_LENGTH)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
