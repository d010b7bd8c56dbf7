"""The transaction table: every movement of a user's balance that is recorded."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Column, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

DEPOSIT = "deposit"
WITHDRAWAL = "withdrawal"
CAMPAIGN_BONUS = "campaign_bonus"  # a campaign's registration bonus: not revenue
TRANSACTION_TYPES = (
    DEPOSIT,
    WITHDRAWAL,
    "subscription_payment",
    "refund",
    "failed_refund",
    "withdrawal_reserve",  # money set aside for a payout request (partners), out of the balance
    "withdrawal_release",  # reserved money given back (a payout rejected or cancelled)
    "referral_reward",
    "poll_reward",
    "gift_payment",
    CAMPAIGN_BONUS,
)
MANUAL = "manual"  # payment method of changes made by an administrator


class Transaction(SQLModel, table=True):
    """A balance movement. ``amount_kopeks`` is positive for deposits and withdrawals alike
    (the type says the direction); ``(payment_method, external_id)`` is unique, which makes
    provider ids and idempotency keys safe against retries."""

    __tablename__ = "transactions"
    __table_args__ = (
        UniqueConstraint("payment_method", "external_id", name="uq_transactions_payment_method_external_id"),
        Index("ix_transactions_user_id_created_at", "user_id", "created_at"),
        Index("ix_transactions_type_created_at", "type", "created_at"),
        Index("ix_transactions_created_at", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    type: str = Field(sa_type=String(30))
    amount_kopeks: int = Field(sa_column=Column(BigInteger, nullable=False))
    description: str | None = Field(default=None, sa_type=Text)
    payment_method: str | None = Field(default=None, sa_type=String(50))
    external_id: str | None = Field(default=None, sa_type=String(255))
    is_completed: bool = True
    balance_after_kopeks: int | None = Field(default=None, sa_type=BigInteger)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    completed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
