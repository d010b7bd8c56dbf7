"""Tables: external identities linked to users, pending OAuth states, pending merges.

States and merge tokens are stored as SHA-256 hashes: the database never holds a usable
credential, and a lookup by hash is an index probe.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

LOGIN = "login"
LINK = "link"


class OAuthIdentity(SQLModel, table=True):
    """An account at an OAuth provider that logs in as ``user_id``. One per provider and
    subject (an external account belongs to one user) and one per user and provider."""

    __tablename__ = "oauth_identities"
    __table_args__ = (
        UniqueConstraint("provider", "subject", name="uq_oauth_identities_provider_subject"),
        UniqueConstraint("user_id", "provider", name="uq_oauth_identities_user_id_provider"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    provider: str = Field(sa_type=String(16))
    subject: str = Field(sa_type=String(255))
    email: str | None = Field(default=None, sa_type=String(255))
    email_verified: bool = False
    username: str | None = Field(default=None, sa_type=String(255))
    display_name: str | None = Field(default=None, sa_type=String(255))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    last_login_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class OAuthState(SQLModel, table=True):
    """A state handed out by an authorize or link-init call: single use, bound to its
    provider and purpose (and, for linking, to the user), with the PKCE verifier and the
    redirect URI the code exchange must repeat."""

    __tablename__ = "oauth_states"
    __table_args__ = (Index("ix_oauth_states_expires_at", "expires_at"),)

    id: int | None = Field(default=None, primary_key=True)
    state_hash: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    provider: str = Field(sa_type=String(16))
    purpose: str = Field(sa_type=String(8))
    user_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=True)
    )
    code_verifier: str | None = Field(default=None, sa_type=String(128))
    redirect_uri: str = Field(sa_type=String(2048))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    expires_at: datetime = Field(sa_type=UTCDateTime)


class MergeToken(SQLModel, table=True):
    """A pending merge: ``primary_user_id`` proved it controls an identity that logs in as
    ``secondary_user_id``; single use, short-lived."""

    __tablename__ = "oauth_merge_tokens"
    __table_args__ = (Index("ix_oauth_merge_tokens_expires_at", "expires_at"),)

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    primary_user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    secondary_user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    provider: str = Field(sa_type=String(16))
    subject: str = Field(sa_type=String(255))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    expires_at: datetime = Field(sa_type=UTCDateTime)
