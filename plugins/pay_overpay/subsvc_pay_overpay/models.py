"""The uploaded client certificate: one row, kept in the database so every instance has it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, LargeBinary, String
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

THE_CERTIFICATE = 1
"""The id of the one row (an upload replaces it)."""


class OverpayCertificate(SQLModel, table=True):
    """The client certificate as the Overpay client uses it: PKCS#12 ``content`` encrypted with
    the upload's ``passphrase`` (``None`` when the settings fix the passphrase, or none was
    given), and what it says of itself."""

    __tablename__ = "overpay_certificates"

    id: int | None = Field(default=None, primary_key=True)
    content: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    passphrase: str | None = Field(default=None, sa_type=String(255))
    subject: str = Field(sa_type=String(1024))
    not_valid_after: datetime = Field(sa_type=UTCDateTime)
    has_chain: bool = False
    filename: str | None = Field(default=None, sa_type=String(255))
    uploaded_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
