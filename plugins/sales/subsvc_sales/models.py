"""The sales plugin's tables: saved carts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, ForeignKey, Integer, String
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

NO_SUBSCRIPTION = 0
"""The ``subscription_key`` of a cart for no subscription in particular (a new one)."""


class SalesCart(SQLModel, table=True):
    """What a user wanted to buy when the balance was short: one per user and subscription
    (``subscription_key`` 0: none), the newest replacing; gone after ``expires_at``."""

    __tablename__ = "sales_carts"

    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    )
    subscription_key: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    mode: str = Field(sa_type=String(40))
    payload: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    expires_at: datetime = Field(sa_type=UTCDateTime)


class SalesTrial(SQLModel, table=True):
    """A user's trial, taken: the primary key makes it one per user, even when two
    activations race (the second insert fails and its transaction rolls back)."""

    __tablename__ = "sales_trials"

    user_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
        )
    )
    subscription_id: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    price_kopeks: int = 0
    activated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
