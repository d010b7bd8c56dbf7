"""The payment table (one row per payment asked of a provider, whatever the provider) and the
administrators' configuration of the payment methods (one row per method id)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

PENDING = "pending"
SUCCEEDED = "succeeded"
FAILED = "failed"
EXPIRED = "expired"
CANCELED = "canceled"
REFUSED_MISMATCH = "refused_mismatch"
STATUSES = (PENDING, SUCCEEDED, FAILED, EXPIRED, CANCELED, REFUSED_MISMATCH)
UNPAID = (PENDING, EXPIRED, FAILED, CANCELED)
"""The statuses a paid notification still credits from (money that arrives is never lost)."""
ENDED_UNPAID = (FAILED, EXPIRED, CANCELED)
"""What :func:`~subsvc_payments.crediting.mark_failed` may set."""


class Payment(SQLModel, table=True):
    """A payment of one provider: ``amount_kopeks`` asked, ``paid_amount_kopeks`` reported paid,
    ``transaction_id`` the billing ``deposit`` it produced (unique: one per payment).
    ``(provider, provider_payment_id)`` is unique, ``(user_id, idempotency_key)`` too.
    ``data`` holds what is particular to the provider (its answers and notifications)."""

    __tablename__ = "payments"
    __table_args__ = (
        UniqueConstraint("provider", "provider_payment_id", name="uq_payments_provider_provider_payment_id"),
        UniqueConstraint("user_id", "idempotency_key", name="uq_payments_user_id_idempotency_key"),
        UniqueConstraint("transaction_id", name="uq_payments_transaction_id"),
        Index("ix_payments_user_id_status_created_at", "user_id", "status", "created_at"),
        Index("ix_payments_status_expires_at", "status", "expires_at"),
        Index("ix_payments_created_at_id", "created_at", "id"),
        Index("ix_payments_status_created_at_id", "status", "created_at", "id"),
        Index("ix_payments_provider_created_at_id", "provider", "created_at", "id"),
        Index("ix_payments_provider_payment_id", "provider_payment_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    provider: str = Field(sa_type=String(50))
    method: str = Field(sa_type=String(50))
    provider_payment_id: str | None = Field(default=None, sa_type=String(255))
    amount_kopeks: int = Field(sa_column=Column(BigInteger, nullable=False))
    paid_amount_kopeks: int | None = Field(default=None, sa_type=BigInteger)
    currency: str = Field(default="RUB", sa_type=String(10))
    status: str = Field(default=PENDING, sa_type=String(20))
    failure_reason: str | None = Field(default=None, sa_type=String(255))
    idempotency_key: str | None = Field(default=None, sa_type=String(128))
    transaction_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("transactions.id", ondelete="SET NULL"), nullable=True),
    )
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    paid_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    flagged_late: bool = False
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


ALL = "all"
USER_TYPES = (ALL, "messenger", "email")
FIRST_TOPUP = ("any", "yes", "no")
PROMO_GROUP_MODES = (ALL, "selected")


class PaymentMethodConfig(SQLModel, table=True):
    """How the cabinet offers one payment method (``method_id``, a provider plugin's method):
    its place, whether it is on, overrides of what the provider plugin says (``None`` = the
    provider's default) and who sees it. ``sub_options`` is ``{option_id: on}`` (an option
    not named is on)."""

    __tablename__ = "payment_method_configs"

    method_id: str = Field(sa_type=String(50), primary_key=True)
    sort_order: int = 0
    is_enabled: bool = True
    display_name: str | None = Field(default=None, sa_type=String(255))
    description: str | None = Field(default=None, sa_type=Text)
    sub_options: dict[str, bool] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    quick_amounts: list[int] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    min_amount_kopeks: int | None = Field(default=None, sa_type=BigInteger)
    max_amount_kopeks: int | None = Field(default=None, sa_type=BigInteger)
    user_type_filter: str = Field(default=ALL, sa_type=String(20))
    first_topup_filter: str = Field(default="any", sa_type=String(10))
    promo_group_filter_mode: str = Field(default=ALL, sa_type=String(10))
    open_url_direct: bool | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class PaymentMethodPromoGroup(SQLModel, table=True):
    """A promo group whose members see a method in ``selected`` mode."""

    __tablename__ = "payment_method_promo_groups"

    method_id: str = Field(
        sa_column=Column(
            String(50),
            ForeignKey("payment_method_configs.method_id", ondelete="CASCADE"),
            primary_key=True,
        )
    )
    promo_group_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("promo_groups.id", ondelete="CASCADE"), primary_key=True, index=True
        )
    )
