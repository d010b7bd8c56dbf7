"""The cards YooKassa saved for a user's later payments (recurrent mode)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow


class SavedCard(SQLModel, table=True):
    """One payment method YooKassa saved (``payment_method_id``, unique), written when the
    payment that saved it is credited; unlinking deactivates it (``is_active`` false)."""

    __tablename__ = "yookassa_saved_cards"
    __table_args__ = (
        UniqueConstraint("payment_method_id", name="uq_yookassa_saved_cards_payment_method_id"),
        Index("ix_yookassa_saved_cards_user_id_is_active", "user_id", "is_active"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    payment_method_id: str = Field(sa_type=String(64))
    method_type: str = Field(sa_type=String(32))
    card_last4: str | None = Field(default=None, sa_type=String(4))
    card_type: str | None = Field(default=None, sa_type=String(32))
    title: str | None = Field(default=None, sa_type=String(255))
    payment_id: int | None = Field(default=None, description="The local payment that saved it.")
    is_active: bool = True
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
