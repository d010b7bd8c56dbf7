"""The server table (a panel squad offered for sale) and its promo-group restrictions."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Index, Integer, String, Text
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow


class Server(SQLModel, table=True):
    """A panel squad offered for sale. ``squad_uuid`` is unique; ``max_users`` None = no
    limit; ``current_users`` is a counter kept by subscription changes and recomputed by
    ``sync-counts``. Promo-group restrictions live in :class:`ServerPromoGroup` (none = every
    group may buy it)."""

    __tablename__ = "server_squads"
    __table_args__ = (Index("ix_server_squads_sort_order_id", "sort_order", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    squad_uuid: str = Field(sa_column=Column(String(255), nullable=False, unique=True))
    display_name: str = Field(sa_type=String(255))
    original_name: str | None = Field(default=None, sa_type=String(255))
    country_code: str | None = Field(default=None, sa_type=String(5))
    is_available: bool = True
    is_trial_eligible: bool = False
    price_kopeks: int = 0
    description: str | None = Field(default=None, sa_type=Text)
    sort_order: int = 0
    max_users: int | None = None
    current_users: int = 0
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class ServerPromoGroup(SQLModel, table=True):
    """A promo group allowed to buy a server."""

    __tablename__ = "server_squad_promo_groups"

    server_squad_id: int = Field(
        sa_column=Column(Integer, ForeignKey("server_squads.id", ondelete="CASCADE"), primary_key=True)
    )
    promo_group_id: int = Field(
        sa_column=Column(
            Integer,
            ForeignKey("promo_groups.id", ondelete="CASCADE"),
            primary_key=True,
            index=True,
        )
    )
