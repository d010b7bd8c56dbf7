"""The landing pages and their guest purchases (only this plugin writes them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from subsvc.db import utcnow
from subsvc.db.types import UTCDateTime

PENDING, PAID, DELIVERED, PENDING_ACTIVATION, FAILED, EXPIRED = (
    "pending",
    "paid",
    "delivered",
    "pending_activation",
    "failed",
    "expired",
)
STATUSES = (PENDING, PAID, DELIVERED, PENDING_ACTIVATION, FAILED, EXPIRED)


class LandingPage(SQLModel, table=True):
    """A public page selling tariffs by slug. ``config`` holds the page's texts (localised
    ``{lang: text}`` maps), allowed tariffs and periods, payment methods, discount and display
    options, as the admin API writes them; the columns are what is searched or ordered on."""

    __tablename__ = "landing_pages"
    __table_args__ = (UniqueConstraint("slug", name="uq_landing_pages_slug"),)

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(sa_type=String(100))
    is_active: bool = True
    gift_enabled: bool = True
    display_order: int = 0
    config: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class GuestPurchase(SQLModel, table=True):
    """A purchase made from a landing page without signing in, paid at a provider through the
    payments plugin (the payment's idempotency key is ``guest:<token>``), opened for the
    :class:`PaymentAccount`'s user. No account of the buyer or recipient exists before it is
    paid: then ``buyer_user_id`` is the contact's account (``None`` for a gift, whose buyer has
    none) and ``user_id`` the account the subscription went to. ``cabinet_password`` is a new
    account's one-time password, kept until the status page has shown it once."""

    __tablename__ = "guest_purchases"
    __table_args__ = (
        UniqueConstraint("token", name="uq_guest_purchases_token"),
        UniqueConstraint("payment_id", name="uq_guest_purchases_payment_id"),
        Index("ix_guest_purchases_landing_id_created_at", "landing_id", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    token: str = Field(sa_type=String(64))
    landing_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("landing_pages.id", ondelete="SET NULL"))
    )
    contact_type: str = Field(sa_type=String(20))
    contact_value: str = Field(sa_type=String(255))
    is_gift: bool = False
    gift_recipient_type: str | None = Field(default=None, sa_type=String(20))
    gift_recipient_value: str | None = Field(default=None, sa_type=String(255))
    gift_message: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    tariff_id: int | None = None
    tariff_name: str | None = Field(default=None, sa_type=String(255))
    period_days: int
    amount_kopeks: int = Field(sa_column=Column(BigInteger, nullable=False))
    currency: str = Field(default="RUB", sa_type=String(10))
    payment_method: str | None = Field(default=None, sa_type=String(50))
    payment_id: int | None = None
    status: str = Field(default=PENDING, sa_type=String(20), index=True)
    buyer_user_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("users.id", ondelete="SET NULL"))
    )
    user_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("users.id", ondelete="SET NULL"))
    )
    new_account: bool = False
    cabinet_email: str | None = Field(default=None, sa_type=String(255))
    cabinet_password: str | None = Field(default=None, sa_type=String(64))
    subscription_url: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    subscription_crypto_link: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    referrer: str | None = Field(default=None, sa_type=String(500))
    source: str | None = Field(default=None, sa_type=String(255))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    paid_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    delivered_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class PaymentAccount(SQLModel, table=True):
    """The one account (row ``id`` 1) guest payments are opened for: the payments plugin needs a
    user to credit, and the buyer's or recipient's account is found or made only once paid."""

    __tablename__ = "landing_payment_account"

    id: int = Field(default=1, primary_key=True)
    user_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("users.id", ondelete="SET NULL"))
    )
