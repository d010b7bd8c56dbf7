"""The record of every upload: which messenger file, of what kind, by whom."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Column, ForeignKey, Integer, String
from sqlmodel import Field, SQLModel

from subsvc.db.types import UTCDateTime, utcnow

FILE_ID_LENGTH = 255


class MediaUpload(SQLModel, table=True):
    """One file staged through the messenger; its uploader is a cabinet user or an API token
    (the one that is not is null; both null once the uploader is deleted)."""

    __tablename__ = "media_uploads"

    id: int | None = Field(default=None, primary_key=True)
    file_id: str = Field(sa_column=Column(String(FILE_ID_LENGTH), nullable=False, unique=True))
    file_unique_id: str | None = Field(default=None, sa_type=String(FILE_ID_LENGTH))
    media_type: str = Field(sa_type=String(16))
    uploader_user_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="SET NULL"), nullable=True, index=True),
    )
    uploader_token_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("web_api_tokens.id", ondelete="SET NULL"), nullable=True),
    )
    size: int = Field(sa_column=Column(BigInteger, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
