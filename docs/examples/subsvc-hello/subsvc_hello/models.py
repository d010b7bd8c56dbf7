from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, Text
from sqlmodel import Field, SQLModel

from subsvc.db.types import UTCDateTime, utcnow


class Greeting(SQLModel, table=True):
    __tablename__ = "hello_greetings"

    id: int | None = Field(default=None, primary_key=True)
    language: str = Field(sa_type=String(10), unique=True)
    text: str = Field(sa_type=Text)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
