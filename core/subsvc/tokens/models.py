"""The API token record (only the hash of a token is stored)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, String, Text
from sqlmodel import Field, SQLModel

from subsvc.db.types import UTCDateTime, utcnow


class ApiToken(SQLModel, table=True):
    __tablename__ = "web_api_tokens"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=255)
    token_hash: str = Field(sa_column=Column(String(128), nullable=False, unique=True))
    token_prefix: str = Field(max_length=32)
    description: str | None = Field(default=None, sa_type=Text)
    is_active: bool = True
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, index=True)
    updated_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    last_used_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    last_used_ip: str | None = Field(default=None, max_length=64)
    created_by: str | None = Field(default=None, max_length=255)

    def usable(self, now: datetime) -> bool:
        """Active and not expired."""
        return self.is_active and (self.expires_at is None or self.expires_at > now)
