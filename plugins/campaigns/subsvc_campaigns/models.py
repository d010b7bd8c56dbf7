"""Tables: the campaigns and their registrations (one per user across all campaigns: the
first touch wins; the registration keeps a snapshot of the bonus granted)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, ForeignKey, Index, Integer, String
from sqlmodel import Field, SQLModel

from subsvc.db.types import UTCDateTime, utcnow

BONUS_TYPES = ("balance", "subscription", "none", "tariff")


class Campaign(SQLModel, table=True):
    """A deep-link campaign: its start parameter (slug) and the bonus a new user gets."""

    __tablename__ = "advertising_campaigns"

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
