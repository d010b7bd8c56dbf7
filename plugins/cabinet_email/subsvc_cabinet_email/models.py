"""The table of pending e-mail proofs: verification links, password reset links and e-mail
change codes and account-merge codes, each stored hashed with an expiry and deleted when used."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Index, Integer, String
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

VERIFY = "verify"  # proves an address: a new account (no user) or one linked to a user
MERGE = "merge"  # a 6-digit code mailed to another account's address: the caller may merge it
RESET = "reset"  # sets a new password
CHANGE = "change"  # a 6-digit code that moves a verified user to a new address
PURPOSES = (VERIFY, RESET, CHANGE, MERGE)


class EmailToken(SQLModel, table=True):
    """One pending proof. ``token_hash`` is the SHA-256 of a link token, or the HMAC of a
        change code; the clear value only ever travels in the e-mail. A registration without
        ``user_id`` carries the new account's password hash and profile (with its campaign and the
    legal documents accepted, from which IP) until it is verified."""

    __tablename__ = "cabinet_email_tokens"
    __table_args__ = (
        Index("ix_cabinet_email_tokens_user_id_purpose", "user_id", "purpose"),
        Index("ix_cabinet_email_tokens_email_purpose", "email", "purpose"),
        Index("ix_cabinet_email_tokens_expires_at", "expires_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    purpose: str = Field(sa_type=String(16))
    token_hash: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    user_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=True)
    )
    email: str = Field(sa_type=String(255))
    password_hash: str | None = Field(default=None, sa_type=String(255))
    first_name: str | None = Field(default=None, sa_type=String(64))
    language: str | None = Field(default=None, sa_type=String(10))
    referral_code: str | None = Field(default=None, sa_type=String(32))
    campaign_slug: str | None = Field(default=None, sa_type=String(64))
    legal_documents: str | None = Field(default=None, sa_type=String(255))  # comma-separated keys
    consent_ip: str | None = Field(default=None, sa_type=String(45))
    attempts: int = 0
    expires_at: datetime = Field(sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class EmailUnsubscribe(SQLModel, table=True):
    """A user who unsubscribed from marketing e-mail (one row per user; transactional mail such
    as verification links still goes out)."""

    __tablename__ = "cabinet_email_unsubscribes"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, unique=True)
    )
    email: str = Field(sa_type=String(255))
    unsubscribed_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
