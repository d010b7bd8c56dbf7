"""The promo group table."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, String, text
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow


class PromoGroup(SQLModel, table=True):
    """Discounts that apply to the group's members; one group is the default for new users
    (a partial unique index allows at most one row with ``is_default``)."""

    __tablename__ = "promo_groups"
    __table_args__ = (
        Index(
            "uq_promo_groups_single_default",
            "is_default",
            unique=True,
            postgresql_where=text("is_default"),
            sqlite_where=text("is_default"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(String(255), nullable=False, unique=True))
    priority: int = 0
    server_discount_percent: int = 0
    traffic_discount_percent: int = 0
    device_discount_percent: int = 0
    period_discounts: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False, server_default=text("'{}'"))
    )
    auto_assign_total_spent_kopeks: int | None = Field(default=None, sa_type=BigInteger)
    apply_discounts_to_addons: bool = True
    is_default: bool = False
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
