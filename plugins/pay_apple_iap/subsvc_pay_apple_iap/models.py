"""The Apple transactions credited here, beside their payments (payments' table holds the
money; this one what Apple said of each, and of its refund)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, ForeignKey, Integer, String
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

CREDITED = "credited"
REVOKED = "revoked"


class AppleIapTransaction(SQLModel, table=True):
    """One Apple transaction credited once (its ``payment_id``): the user, the product and
    ``amount_kopeks`` it credited, Apple's ``price`` (milli-units of ``currency``) and
    environment; ``status`` ``revoked`` once Apple refunded it (``revoked_at``, its
    ``revocation_reason``); what the last reconciliation found different (``drift``)."""

    __tablename__ = "apple_iap_transactions"

    id: int | None = Field(default=None, primary_key=True)
    payment_id: int = Field(
        sa_column=Column(Integer, ForeignKey("payments.id", ondelete="CASCADE"), nullable=False, unique=True)
    )
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    transaction_id: str = Field(sa_type=String(64), unique=True)
    original_transaction_id: str = Field(sa_type=String(64), index=True)
    product_id: str = Field(sa_type=String(255))
    amount_kopeks: int = Field(sa_column=Column(BigInteger, nullable=False))
    price: int | None = Field(default=None, sa_type=BigInteger)
    currency: str | None = Field(default=None, sa_type=String(3))
    environment: str = Field(default="", sa_type=String(20))
    status: str = Field(default=CREDITED, sa_type=String(20))
    purchased_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    revocation_reason: int | None = None
    consumption_requested_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    reconciled_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    drift: str | None = Field(default=None, sa_type=String(1000))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
