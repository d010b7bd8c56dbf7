"""The promo code tables: the codes, who used which, and the discounts codes granted."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

CODE_LENGTH = 50
UNLIMITED_USES = 999_999
"""``max_uses`` stored for a code created with ``max_uses: 0`` (unlimited), as the reference does."""


class PromoCodeType(StrEnum):
    """What a code grants. ``discount`` keeps its percent in ``balance_bonus_kopeks`` (1..100)
    and its validity in hours in ``subscription_days`` (0: until the first purchase)."""

    BALANCE = "balance"
    SUBSCRIPTION_DAYS = "subscription_days"
    TRIAL_SUBSCRIPTION = "trial_subscription"
    PROMO_GROUP = "promo_group"
    DISCOUNT = "discount"
    BALANCE_AND_DAYS = "balance_and_days"


class PromoCode(SQLModel, table=True):
    """A code users activate once each, at most ``max_uses`` times in all. ``code`` is stored
    trimmed and upper-cased and is unique; ``current_uses`` only moves through one conditional
    UPDATE (``current_uses < max_uses``), which a CHECK backs. A code with a ``tariff_id``
    adds its days and traffic only to a subscription of that tariff (a deleted tariff unbinds it)."""

    __tablename__ = "promocodes"
    __table_args__ = (
        CheckConstraint("current_uses >= 0 AND current_uses <= max_uses", name="ck_promocodes_uses"),
        Index("ix_promocodes_created_at_id", "created_at", "id"),
        Index("ix_promocodes_is_active_created_at_id", "is_active", "created_at", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(sa_column=Column(String(CODE_LENGTH), nullable=False, unique=True))
    type: str = Field(max_length=30)
    balance_bonus_kopeks: int = Field(
        default=0, sa_column=Column(BigInteger, nullable=False, server_default="0")
    )
    subscription_days: int = 0
    traffic_gb: int = 0
    max_uses: int = 1
    current_uses: int = 0
    valid_from: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    valid_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    is_active: bool = True
    first_purchase_only: bool = False
    promo_group_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("promo_groups.id", ondelete="SET NULL"), nullable=True),
    )
    tariff_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("tariffs.id", ondelete="SET NULL"), nullable=True),
    )
    created_by: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    )
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)

    @property
    def uses_left(self) -> int:
        return max(0, self.max_uses - self.current_uses)

    def is_valid_at(self, now: datetime) -> bool:
        """Active, not used up, and ``now`` within ``valid_from``..``valid_until``."""
        return (
            self.is_active
            and self.current_uses < self.max_uses
            and self.valid_from <= now
            and (self.valid_until is None or self.valid_until >= now)
        )


class PromoCodeUse(SQLModel, table=True):
    """One activation: a user used a code (once: ``(promocode_id, user_id)`` is unique).

    ``previous_promo_group_id`` is the user's group before the code moved them into its own,
    so that deactivating a discount code can move them back."""

    __tablename__ = "promocode_uses"
    __table_args__ = (
        UniqueConstraint("promocode_id", "user_id", name="uq_promocode_uses_promocode_id_user_id"),
        Index("ix_promocode_uses_promocode_id_used_at", "promocode_id", "used_at"),
        Index("ix_promocode_uses_user_id_used_at", "user_id", "used_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    promocode_id: int = Field(
        sa_column=Column(Integer, ForeignKey("promocodes.id", ondelete="CASCADE"), nullable=False)
    )
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    used_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    previous_promo_group_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("promo_groups.id", ondelete="SET NULL"), nullable=True),
    )


class PromoCodeDiscount(SQLModel, table=True):
    """The personal discount a ``discount`` code granted a user: one per user at a time.

    It holds until ``expires_at`` (null: until the user's first purchase, which consumes it)
    and outlives the code itself (``code`` keeps its text)."""

    __tablename__ = "promocode_discounts"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, unique=True)
    )
    promocode_id: int | None = Field(
        default=None,
        sa_column=Column(
            Integer, ForeignKey("promocodes.id", ondelete="SET NULL"), nullable=True, index=True
        ),
    )
    code: str = Field(sa_column=Column(String(CODE_LENGTH), nullable=False))
    percent: int
    expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


# The tables, typed (SQLModel declares no ``__table__`` for type checkers).
CODES: Table = SQLModel.metadata.tables[PromoCode.__tablename__]
USES: Table = SQLModel.metadata.tables[PromoCodeUse.__tablename__]
DISCOUNTS: Table = SQLModel.metadata.tables[PromoCodeDiscount.__tablename__]
