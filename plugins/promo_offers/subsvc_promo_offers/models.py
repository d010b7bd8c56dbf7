"""The tables of promo offers: the offers, their templates and log, the discount a claim
activated, the temporary server access a claim granted, and notification broadcasts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, ForeignKey, Index, Integer, String, Text, text
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

PERCENT_DISCOUNT = "percent_discount"
BALANCE_BONUS = "balance_bonus"
SUBSCRIPTION_DAYS = "subscription_days"
TEST_ACCESS = "test_access"

_OPEN = text("is_active AND claimed_at IS NULL")
_NOT_REVOKED = text("revoked_at IS NULL")


def _user_fk(ondelete: str, *, nullable: bool) -> Any:
    return Column(Integer, ForeignKey("users.id", ondelete=ondelete), nullable=nullable)


def _json(default: str) -> Any:
    return Column(JSON, nullable=False, server_default=text(f"'{default}'"))


class DiscountOffer(SQLModel, table=True):
    """A personal offer to one user. At most one *open* offer (active, not claimed) exists per
    user and ``notification_type`` (a partial unique index): offering the same type again
    refreshes it."""

    __tablename__ = "discount_offers"
    __table_args__ = (
        Index(
            "uq_discount_offers_open_user_type",
            "user_id",
            "notification_type",
            unique=True,
            postgresql_where=_OPEN,
            sqlite_where=_OPEN,
        ),
        Index("ix_discount_offers_open_expires_at", "expires_at", postgresql_where=_OPEN, sqlite_where=_OPEN),
        Index("ix_discount_offers_user_id_created_at", "user_id", "created_at"),
        Index("ix_discount_offers_created_at_id", "created_at", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(sa_column=_user_fk("CASCADE", nullable=False))
    subscription_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("subscriptions.id", ondelete="SET NULL"), nullable=True),
    )
    notification_type: str = Field(sa_type=String(100))
    discount_percent: int = 0
    bonus_amount_kopeks: int = Field(
        default=0, sa_column=Column(BigInteger, nullable=False, server_default="0")
    )
    expires_at: datetime = Field(sa_type=UTCDateTime)
    claimed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    is_active: bool = True
    effect_type: str = Field(default=PERCENT_DISCOUNT, sa_type=String(50))
    extra_data: dict[str, Any] = Field(default_factory=dict, sa_column=_json("{}"))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class PromoOfferTemplate(SQLModel, table=True):
    """A ready-made offer (text, button, terms) per ``offer_type``; the defaults are seeded at start."""

    __tablename__ = "promo_offer_templates"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_type=String(255))
    offer_type: str = Field(sa_column=Column(String(50), nullable=False, unique=True))
    message_text: str = Field(sa_type=Text)
    button_text: str = Field(sa_type=String(255))
    valid_hours: int = 24
    discount_percent: int = 0
    bonus_amount_kopeks: int = Field(
        default=0, sa_column=Column(BigInteger, nullable=False, server_default="0")
    )
    active_discount_hours: int | None = None
    test_duration_hours: int | None = None
    test_squad_uuids: list[str] = Field(default_factory=list, sa_column=_json("[]"))
    is_active: bool = True
    created_by: int | None = Field(default=None, sa_column=_user_fk("SET NULL", nullable=True))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class PromoOfferLog(SQLModel, table=True):
    """What happened to offers and discounts: ``claimed``, ``consumed``, ``disabled``."""

    __tablename__ = "promo_offer_logs"
    __table_args__ = (
        Index("ix_promo_offer_logs_created_at_id", "created_at", "id"),
        Index("ix_promo_offer_logs_user_id_created_at", "user_id", "created_at"),
        Index("ix_promo_offer_logs_offer_id", "offer_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int | None = Field(default=None, sa_column=_user_fk("SET NULL", nullable=True))
    offer_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("discount_offers.id", ondelete="SET NULL"), nullable=True),
    )
    action: str = Field(sa_type=String(50))
    source: str | None = Field(default=None, sa_type=String(100))
    percent: int | None = None
    effect_type: str | None = Field(default=None, sa_type=String(50))
    details: dict[str, Any] = Field(default_factory=dict, sa_column=_json("{}"))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class ActiveDiscount(SQLModel, table=True):
    """The personal discount a claimed offer gave a user (one per user; a new claim replaces it)."""

    __tablename__ = "promo_offer_active_discounts"

    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    )
    discount_percent: int
    source: str | None = Field(default=None, sa_type=String(100))
    offer_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("discount_offers.id", ondelete="SET NULL"), nullable=True),
    )
    expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class ServerAccessGrant(SQLModel, table=True):
    """A server (squad) a ``test_access`` claim connected to a subscription until ``expires_at``;
    the sweeper disconnects it then (``revoked_at``)."""

    __tablename__ = "promo_offer_test_access"
    __table_args__ = (
        Index(
            "ix_promo_offer_test_access_due",
            "expires_at",
            postgresql_where=_NOT_REVOKED,
            sqlite_where=_NOT_REVOKED,
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    offer_id: int = Field(
        sa_column=Column(Integer, ForeignKey("discount_offers.id", ondelete="CASCADE"), nullable=False)
    )
    subscription_id: int = Field(
        sa_column=Column(Integer, ForeignKey("subscriptions.id", ondelete="CASCADE"), nullable=False)
    )
    squad_uuid: str = Field(sa_type=String(255))
    expires_at: datetime = Field(sa_type=UTCDateTime)
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class OfferBroadcast(SQLModel, table=True):
    """The messenger notifications of one broadcast: what is sent, and how far it got.

    ``status``: ``queued`` -> ``running`` -> ``completed``. The sender holds a lease
    (``lease_until``) while it works, so one instance sends a broadcast at a time and another
    takes over when the lease runs out (after a crash)."""

    __tablename__ = "promo_offer_broadcasts"
    __table_args__ = (Index("ix_promo_offer_broadcasts_status", "status"),)

    id: int | None = Field(default=None, primary_key=True)
    target: str | None = Field(default=None, sa_type=String(100))
    notification_type: str = Field(sa_type=String(100))
    message_text: str = Field(sa_type=Text)
    button_text: str = Field(sa_type=String(255))
    status: str = Field(default="queued", sa_type=String(20))
    total_count: int = 0
    sent_count: int = 0
    failed_count: int = 0
    blocked_count: int = 0
    created_by: int | None = Field(default=None, sa_column=_user_fk("SET NULL", nullable=True))
    lease_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    completed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class OfferBroadcastRecipient(SQLModel, table=True):
    """One message of a broadcast: ``pending`` until sent, then ``sent``, ``failed`` or
    ``blocked`` (the user blocked the bot)."""

    __tablename__ = "promo_offer_broadcast_recipients"
    __table_args__ = (Index("ix_promo_offer_broadcast_recipients_state", "broadcast_id", "state", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    broadcast_id: int = Field(
        sa_column=Column(Integer, ForeignKey("promo_offer_broadcasts.id", ondelete="CASCADE"), nullable=False)
    )
    offer_id: int = Field(
        sa_column=Column(Integer, ForeignKey("discount_offers.id", ondelete="CASCADE"), nullable=False)
    )
    user_id: int = Field(sa_column=_user_fk("CASCADE", nullable=False))
    messenger_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    state: str = Field(default="pending", sa_type=String(10))
    error: str | None = Field(default=None, sa_type=String(255))
    sent_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


MODELS: list[type[SQLModel]] = [
    DiscountOffer,
    PromoOfferTemplate,
    PromoOfferLog,
    ActiveDiscount,
    ServerAccessGrant,
    OfferBroadcast,
    OfferBroadcastRecipient,
]
