"""The plugin's tables: refresh tokens, used one-time credentials, deep-link tokens."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Index, Integer, String
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow


class CabinetRefreshToken(SQLModel, table=True):
    """A refresh token handed out at login: its SHA-256, revocable until it expires."""

    __tablename__ = "cabinet_refresh_tokens"
    __table_args__ = (Index("ix_cabinet_refresh_tokens_user_id", "user_id"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    token_hash: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    device_info: str | None = Field(default=None, max_length=255)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    expires_at: datetime = Field(sa_type=UTCDateTime)
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class UsedCredential(SQLModel, table=True):
    """A one-time login credential already used (widget hash, OIDC token, auto-login token),
    kept until it could no longer be valid anyway."""

    __tablename__ = "cabinet_used_credentials"
    __table_args__ = (Index("ix_cabinet_used_credentials_expires_at", "expires_at"),)

    id: int | None = Field(default=None, primary_key=True)
    digest: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    kind: str = Field(max_length=20)
    expires_at: datetime = Field(sa_type=UTCDateTime)


DEEPLINK_PENDING = "pending"
DEEPLINK_CONFIRMED = "confirmed"
DEEPLINK_CONSUMED = "consumed"


class DeepLinkToken(SQLModel, table=True):
    """A deep-link login: requested by the cabinet, confirmed by the bot, consumed by a poll."""

    __tablename__ = "cabinet_deeplink_tokens"
    __table_args__ = (Index("ix_cabinet_deeplink_tokens_expires_at", "expires_at"),)

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    status: str = Field(default=DEEPLINK_PENDING, max_length=20)
    user_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=True)
    )
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    expires_at: datetime = Field(sa_type=UTCDateTime)
    confirmed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class FirstCampaign(SQLModel, table=True):
    """The advertising campaign a user first came from (``campaign_slug`` of the login or
    registration that made the account): one row per user, the first touch wins."""

    __tablename__ = "cabinet_first_campaigns"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, unique=True)
    )
    campaign_slug: str = Field(sa_type=String(64))
    source: str = Field(sa_type=String(32))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
