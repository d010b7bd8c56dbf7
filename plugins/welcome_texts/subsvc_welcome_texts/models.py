"""The welcome text table."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow


class WelcomeText(SQLModel, table=True):
    """A greeting for new users. At most one is active: the one the bot sends (when enabled)."""

    __tablename__ = "welcome_texts"
    __table_args__ = (
        Index("ix_welcome_texts_created_at_id", "created_at", "id"),
        Index("ix_welcome_texts_is_active", "is_active"),
    )

    id: int | None = Field(default=None, primary_key=True)
    text_content: str = Field(sa_column=Column(Text, nullable=False))
    is_active: bool = True
    is_enabled: bool = True
    created_by: int | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
