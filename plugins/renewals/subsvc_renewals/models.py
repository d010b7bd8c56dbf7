"""The one table of renewals: what autopay did about each term of a subscription."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Column, ForeignKey, Integer
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

RENEWED = "renewed"
FAILED = "failed"


class AutopayAttempt(SQLModel, table=True):
    """Autopay's one attempt at renewing a subscription's term ending ``term_end``: the primary
    key makes it once per term, whatever the workers and restarts (claimed in the transaction
    that charges, so a rolled back attempt leaves no claim)."""

    __tablename__ = "renewal_autopay_attempts"

    subscription_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("subscriptions.id", ondelete="CASCADE"), primary_key=True, nullable=False
        )
    )
    term_end: datetime = Field(sa_type=UTCDateTime, primary_key=True)
    outcome: str = Field(max_length=16)
    amount_kopeks: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
