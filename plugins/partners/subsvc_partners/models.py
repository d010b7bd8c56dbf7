"""The partners plugin's tables: its settings row, each user's partner standing, partner
applications, withdrawal requests and the audit trail of their changes."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Column, ForeignKey, Index, Integer, String, Text
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

SETTINGS_ROW_ID = 1


class PartnerSettingsRow(SQLModel, table=True):
    """The stored partner settings (one row); a null column: the environment's default."""

    __tablename__ = "partner_settings"

    id: int = Field(default=SETTINGS_ROW_ID, primary_key=True)
    withdrawal_enabled: bool | None = None
    withdrawal_min_amount_kopeks: int | None = Field(default=None, sa_type=BigInteger)
    withdrawal_cooldown_days: int | None = None
    withdrawal_requisites_text: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    partner_section_visible: bool | None = None
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class Partner(SQLModel, table=True):
    """A user's partner standing (no row: ``none``) and individual commission percent."""

    __tablename__ = "partners"

    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    )
    status: str = Field(sa_column=Column(String(16), nullable=False, index=True))
    commission_percent: int | None = None
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class PartnerApplication(SQLModel, table=True):
    """One application to the partner programme."""

    __tablename__ = "partner_applications"
    __table_args__ = (Index("ix_partner_applications_user", "user_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    company_name: str | None = Field(default=None, max_length=255)
    website_url: str | None = Field(default=None, max_length=500)
    messenger_channel: str | None = Field(default=None, max_length=255)
    description: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    expected_monthly_referrals: int | None = Field(default=None, sa_type=BigInteger)
    desired_commission_percent: int | None = None
    status: str = Field(sa_column=Column(String(16), nullable=False, index=True))
    admin_comment: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    approved_commission_percent: int | None = None
    processed_by: int | None = None
    processed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class WithdrawalRequest(SQLModel, table=True):
    """A request to pay out referral earnings; its amount is reserved (out of the balance)
    while it is ``pending`` or ``approved``, paid out once ``completed``, given back when
    ``rejected`` or ``cancelled``."""

    __tablename__ = "withdrawal_requests"
    __table_args__ = (
        Index("ix_withdrawal_requests_user", "user_id", "status"),
        Index("ix_withdrawal_requests_status", "status", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    amount_kopeks: int = Field(sa_type=BigInteger)
    status: str = Field(sa_column=Column(String(16), nullable=False))
    payment_details: str = Field(sa_column=Column(Text, nullable=False))
    risk_score: int = 0
    risk_analysis: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    reserve_transaction_id: int | None = None
    release_transaction_id: int | None = None
    admin_comment: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    processed_by: int | None = None
    processed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    completed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class WithdrawalAudit(SQLModel, table=True):
    """Who moved a withdrawal request from one status to another, when, and why."""

    __tablename__ = "withdrawal_audit"

    id: int | None = Field(default=None, primary_key=True)
    request_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("withdrawal_requests.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    from_status: str | None = Field(default=None, max_length=16)
    to_status: str = Field(max_length=16)
    actor_id: int | None = None
    comment: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    transaction_id: int | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
