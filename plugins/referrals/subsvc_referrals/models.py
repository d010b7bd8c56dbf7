"""The referral earnings (the source of truth of what referrers earned) and the stored
referral settings."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, ForeignKey, Index, Integer, String
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

FIRST_TOPUP = "referral_first_topup"
COMMISSION = "referral_commission_topup"
REFEREE_BONUS = "referral_first_topup_bonus"
PAID_REASONS = (FIRST_TOPUP, COMMISSION)


class ReferralEarning(SQLModel, table=True):
    """Money one user earned through another: ``key`` is unique, so one payment (or one
    first top-up) pays once however often it is processed."""

    __tablename__ = "referral_earnings"
    __table_args__ = (
        Index("ix_referral_earnings_user_created", "user_id", "created_at"),
        Index("ix_referral_earnings_pair", "user_id", "referral_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    referral_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="SET NULL"), nullable=True, index=True),
    )
    amount_kopeks: int = Field(sa_column=Column(BigInteger, nullable=False))
    reason: str = Field(sa_column=Column(String(64), nullable=False))
    key: str = Field(sa_column=Column(String(128), nullable=False, unique=True))
    transaction_id: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    campaign_id: int | None = Field(default=None, sa_column=Column(Integer, nullable=True, index=True))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class ReferralSetting(SQLModel, table=True):
    """One stored value of the referral configuration (absent: the environment's default)."""

    __tablename__ = "referral_settings"

    key: str = Field(sa_column=Column(String(64), primary_key=True))
    value: Any = Field(default=None, sa_column=Column(JSON, nullable=True))
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class ReferralFirstTopup(SQLModel, table=True):
    """A referee's qualifying first top-up, claimed once (the programme's own flag: billing
    marks ``users.has_made_first_topup`` on any credit). Written in the transaction that pays
    its bonuses, so the claim and the bonuses commit together or not at all."""

    __tablename__ = "referral_first_topups"

    referee_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
        )
    )
    referrer_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="SET NULL"), nullable=True, index=True),
    )
    payment_id: int = Field(sa_column=Column(Integer, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
