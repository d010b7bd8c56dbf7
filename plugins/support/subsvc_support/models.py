"""The support settings table: one row (id 1), each column null until an administrator sets
it (null: the environment's default)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, String
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

ROW_ID = 1


class SupportSettingsRow(SQLModel, table=True):
    """The stored support configuration; a column set wins over its environment default."""

    __tablename__ = "support_settings"

    id: int = Field(default=ROW_ID, primary_key=True)
    system_mode: str | None = Field(default=None, sa_column=Column(String(16), nullable=True))
    menu_enabled: bool | None = None
    info_texts: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    moderators: list[Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    admin_ticket_notifications_enabled: bool | None = None
    user_ticket_notifications_enabled: bool | None = None
    cabinet_user_notifications_enabled: bool | None = None
    cabinet_admin_notifications_enabled: bool | None = None
    sla_enabled: bool | None = None
    sla_minutes: int | None = None
    sla_check_interval_seconds: int | None = None
    sla_reminder_cooldown_minutes: int | None = None
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
