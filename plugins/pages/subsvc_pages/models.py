"""Tables of the information pages: versioned service rules, one rich-text page per language
(public offer, privacy policy), and the FAQ (pages plus a per-language enabled flag)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from subsvc.db.types import UTCDateTime, utcnow

LANGUAGE_LENGTH = 10
TITLE_LENGTH = 255


class ServiceRule(SQLModel, table=True):
    """One version of the service rules of a language; the active one is shown."""

    __tablename__ = "service_rules"
    __table_args__ = (
        Index("ix_service_rules_language_active", "language", "is_active"),
        Index("ix_service_rules_language_created_at", "language", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    order: int = 0
    title: str = Field(sa_type=String(TITLE_LENGTH))
    content: str = Field(sa_type=Text)
    language: str = Field(sa_type=String(LANGUAGE_LENGTH))
    is_active: bool = True
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class RichTextPage(SQLModel):
    """The columns of a one-row-per-language text page (public offer, privacy policy)."""

    id: int | None = Field(default=None, primary_key=True)
    language: str = Field(sa_type=String(LANGUAGE_LENGTH))
    content: str = Field(default="", sa_type=Text)
    is_enabled: bool = True
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class PublicOffer(RichTextPage, table=True):
    """The public offer of one language."""

    __tablename__ = "public_offers"
    __table_args__ = (UniqueConstraint("language", name="uq_public_offers_language"),)


class PrivacyPolicy(RichTextPage, table=True):
    """The privacy policy of one language."""

    __tablename__ = "privacy_policies"
    __table_args__ = (UniqueConstraint("language", name="uq_privacy_policies_language"),)


class FaqSetting(SQLModel, table=True):
    """Whether the FAQ is shown for one language."""

    __tablename__ = "faq_settings"
    __table_args__ = (UniqueConstraint("language", name="uq_faq_settings_language"),)

    id: int | None = Field(default=None, primary_key=True)
    language: str = Field(sa_type=String(LANGUAGE_LENGTH))
    is_enabled: bool = True
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class FaqPage(SQLModel, table=True):
    """One FAQ page of a language, shown in ``display_order``."""

    __tablename__ = "faq_pages"
    __table_args__ = (Index("ix_faq_pages_language_display_order", "language", "display_order"),)

    id: int | None = Field(default=None, primary_key=True)
    language: str = Field(sa_type=String(LANGUAGE_LENGTH))
    title: str = Field(sa_type=String(TITLE_LENGTH))
    content: str = Field(sa_type=Text)
    display_order: int = 0
    is_active: bool = True
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
