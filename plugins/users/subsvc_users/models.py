"""The user table."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, CheckConstraint, Column, ForeignKey, Index, Integer, String
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

USER_STATUSES = ("active", "blocked", "deleted")


class User(SQLModel, table=True):
    """A customer of the bot. ``balance_kopeks`` is the billing plugin's (its conditional
    updates change it; an account merge adds what billing left) and never goes below zero (a
    CHECK constraint backs those updates). On PostgreSQL the searched text columns (username,
    first_name, last_name, referral_code) have trigram indexes (migration only)."""

    __tablename__ = "users"
    __table_args__ = (
        CheckConstraint("balance_kopeks >= 0", name="ck_users_balance_not_negative"),
        # every list is ordered by (created_at, id) descending, within a filter or not
        Index("ix_users_created_at_id", "created_at", "id"),
        Index("ix_users_status_created_at_id", "status", "created_at", "id"),
        Index("ix_users_promo_group_created_at_id", "promo_group_id", "created_at", "id"),
        Index("ix_users_referred_by_id", "referred_by_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    messenger_id: int | None = Field(default=None, sa_column=Column(BigInteger, unique=True, nullable=True))
    email: str | None = Field(default=None, sa_column=Column(String(255), unique=True, nullable=True))
    username: str | None = Field(default=None, max_length=255)
    first_name: str | None = Field(default=None, max_length=255)
    last_name: str | None = Field(default=None, max_length=255)
    status: str = Field(default="active", max_length=20)
    language: str = Field(default="ru", max_length=10)
    balance_kopeks: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, server_default="0"))
    has_had_paid_subscription: bool = False
    has_made_first_topup: bool = False
    referral_code: str | None = Field(default=None, sa_column=Column(String(32), unique=True, nullable=True))
    referred_by_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    )
    promo_group_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("promo_groups.id", ondelete="RESTRICT"), nullable=True),
    )
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    last_activity: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # identity for the cabinet (the cabinet login plugins', written through subsvc_users.accounts)
    auth_type: str = Field(default="messenger", max_length=20)
    email_verified: bool = False
    email_verified_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    email_verification_source: str | None = Field(default=None, max_length=32)
    password_hash: str | None = Field(default=None, max_length=255)
    cabinet_last_login: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # when the Bot API last said the user refuses the bot (blocked it); null = not known to
    # (written by the segments plugin from the messenger client's answers)
    messenger_blocked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
