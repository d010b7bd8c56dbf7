"""Tables of the information pages: versioned service rules, one rich-text page per language
(public offer, privacy policy, recurring-payments terms), the FAQ (pages plus a per-language
enabled flag), where each document is shown, the users' legal consents and the info pages."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, ForeignKey, Index, Integer, String, Text, UniqueConstraint
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


class RecurrentPaymentsDocument(RichTextPage, table=True):
    """The recurring-payments terms of one language."""

    __tablename__ = "recurrent_payments"
    __table_args__ = (UniqueConstraint("language", name="uq_recurrent_payments_language"),)


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


DOCUMENT_LENGTH = 32
MODE_LENGTH = 8


class DocumentDisplayMode(SQLModel, table=True):
    """Where a document (faq, rules, privacy, offer, recurrent) is shown, when the environment
    does not fix it: ``bot``, ``web`` or ``both``."""

    __tablename__ = "document_display_modes"
    __table_args__ = (UniqueConstraint("document", name="uq_document_display_modes_document"),)

    id: int | None = Field(default=None, primary_key=True)
    document: str = Field(sa_type=String(DOCUMENT_LENGTH))
    display_mode: str = Field(sa_type=String(MODE_LENGTH))
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class LegalConsent(SQLModel, table=True):
    """A user's acceptance of one version of a legal document (append-only, one row per
    user, document and version)."""

    __tablename__ = "legal_consents"
    __table_args__ = (
        UniqueConstraint("user_id", "document", "version", name="uq_legal_consents_user_document_version"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    document: str = Field(sa_type=String(DOCUMENT_LENGTH))
    language: str = Field(sa_type=String(LANGUAGE_LENGTH))
    version: str = Field(sa_type=String(40))
    document_updated_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    source: str | None = Field(default=None, sa_type=String(32))
    ip_address: str | None = Field(default=None, sa_type=String(64))
    accepted_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class InfoPage(SQLModel, table=True):
    """A page of the cabinet's information section: per-language title and content."""

    __tablename__ = "info_pages"
    __table_args__ = (
        UniqueConstraint("slug", name="uq_info_pages_slug"),
        Index("ix_info_pages_sort_order", "sort_order"),
    )

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(sa_type=String(200))
    title: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    content: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    page_type: str = Field(default="page", sa_type=String(MODE_LENGTH))
    is_active: bool = True
    sort_order: int = 0
    icon: str | None = Field(default=None, sa_type=String(50))
    replaces_tab: str | None = Field(default=None, sa_type=String(16))
    display_mode: str = Field(default="both", sa_type=String(MODE_LENGTH))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
