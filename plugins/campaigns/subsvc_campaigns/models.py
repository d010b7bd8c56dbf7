"""Tables: the campaigns and their registrations (one per user across all campaigns: the
first touch wins; the registration keeps a snapshot of the bonus granted)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, ForeignKey, Index, Integer, String
from sqlmodel import Field, SQLModel

from subsvc.db.types import UTCDateTime, utcnow

COUNTER = {"server_default": "0"}
BONUS_TYPES = ("balance", "subscription", "none", "tariff")


class Campaign(SQLModel, table=True):
    """A deep-link campaign: its start parameter (slug) and the bonus a new user gets."""

    __tablename__ = "advertising_campaigns"
    __table_args__ = (Index("ix_advertising_campaigns_partner_user_id", "partner_user_id"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_type=String(255))
    start_parameter: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    bonus_type: str = Field(sa_type=String(16))
    balance_bonus_kopeks: int = Field(default=0, sa_type=BigInteger)
    subscription_duration_days: int | None = None
    subscription_traffic_gb: int | None = None
    subscription_device_limit: int | None = None
    subscription_squads: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    tariff_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("tariffs.id", ondelete="SET NULL"), nullable=True)
    )
    tariff_duration_days: int | None = None
    is_active: bool = True
    partner_user_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    )
    created_by: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    )
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class CampaignRegistration(SQLModel, table=True):
    """A user attributed to a campaign, with the bonus granted (``user_id`` unique: once)."""

    __tablename__ = "advertising_campaign_registrations"
    __table_args__ = (Index("ix_campaign_registrations_campaign_created", "campaign_id", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(
        sa_column=Column(Integer, ForeignKey("advertising_campaigns.id", ondelete="RESTRICT"), nullable=False)
    )
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, unique=True)
    )
    bonus_type: str = Field(sa_type=String(16))
    balance_bonus_kopeks: int = Field(default=0, sa_type=BigInteger)
    subscription_duration_days: int | None = None
    tariff_id: int | None = None
    tariff_duration_days: int | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class CampaignTotals(SQLModel, table=True):
    """A campaign's running totals, changed in the transaction of what they count: the
    registrations and bonuses (attribution) and the registered users' gateway payments."""

    __tablename__ = "campaign_totals"

    campaign_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("advertising_campaigns.id", ondelete="CASCADE"), primary_key=True
        )
    )
    registrations: int = Field(default=0, sa_type=BigInteger, sa_column_kwargs=COUNTER)
    balance_kopeks: int = Field(default=0, sa_type=BigInteger, sa_column_kwargs=COUNTER)
    subscriptions: int = Field(default=0, sa_type=BigInteger, sa_column_kwargs=COUNTER)
    tariffs: int = Field(default=0, sa_type=BigInteger, sa_column_kwargs=COUNTER)
    last_registration: datetime | None = Field(default=None, sa_type=UTCDateTime)
    revenue_kopeks: int = Field(default=0, sa_type=BigInteger, sa_column_kwargs=COUNTER)
    paid_users: int = Field(default=0, sa_type=BigInteger, sa_column_kwargs=COUNTER)
    first_payments_kopeks: int = Field(default=0, sa_type=BigInteger, sa_column_kwargs=COUNTER)


class CampaignDay(SQLModel, table=True):
    """A campaign's registrations and revenue of one UTC day (``YYYY-MM-DD``)."""

    __tablename__ = "campaign_days"

    campaign_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("advertising_campaigns.id", ondelete="CASCADE"), primary_key=True
        )
    )
    day: str = Field(sa_column=Column(String(10), primary_key=True))
    registrations: int = Field(default=0, sa_type=BigInteger, sa_column_kwargs=COUNTER)
    revenue_kopeks: int = Field(default=0, sa_type=BigInteger, sa_column_kwargs=COUNTER)


class CampaignPayment(SQLModel, table=True):
    """A gateway payment counted in a campaign's revenue: the key that counts it once."""

    __tablename__ = "campaign_payments"
    __table_args__ = (Index("ix_campaign_payments_user", "user_id"),)

    transaction_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    campaign_id: int = Field(
        sa_column=Column(Integer, ForeignKey("advertising_campaigns.id", ondelete="CASCADE"), nullable=False)
    )
    user_id: int = Field(sa_column=Column(Integer, nullable=False))
    amount_kopeks: int = Field(sa_type=BigInteger)


class CampaignPayer(SQLModel, table=True):
    """What one registered user paid in all (the sum of the user's ``campaign_payments``),
    kept with them: the chart's top payers read the first entries of the index
    ``(campaign_id, paid_kopeks, user_id)`` backwards (the highest first; among equals the
    latest user)."""

    __tablename__ = "campaign_payers"
    __table_args__ = (Index("ix_campaign_payers_top", "campaign_id", "paid_kopeks", "user_id"),)

    campaign_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("advertising_campaigns.id", ondelete="CASCADE"), primary_key=True
        )
    )
    user_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    paid_kopeks: int = Field(sa_type=BigInteger)
