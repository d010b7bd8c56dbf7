"""The tariff table and its promo-group restrictions.

This plugin's migration also creates ``ix_subscriptions_tariff_id`` on the subscriptions
table (per-tariff counts, the delete check, stats and sync read through it). It is not
declared here: the index belongs on the subscriptions plugin's model, whose own
migration-drift check would otherwise see an index its migrations do not make."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, ForeignKey, Index, Integer, String, Text, text
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow


class Tariff(SQLModel, table=True):
    """A subscription plan offered for sale.

    ``period_prices`` is ``{"<days>": <kopeks>}``; ``allowed_squads`` the panel squads (server
    uuids) it connects to; ``server_traffic_limits`` ``{"<squad uuid>": {"traffic_limit_gb": n}}``;
    ``traffic_topup_packages`` ``{"<gb>": <kopeks>}``. At most one tariff is the trial tariff
    (a partial unique index on ``is_trial_available``). Promo-group restrictions live in
    :class:`TariffPromoGroup` (none = every group may buy it).
    """

    __tablename__ = "tariffs"
    __table_args__ = (
        Index("ix_tariffs_display_order_id", "display_order", "id"),
        Index(
            "uq_tariffs_single_trial",
            "is_trial_available",
            unique=True,
            postgresql_where=text("is_trial_available"),
            sqlite_where=text("is_trial_available"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_type=String(255))
    description: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    display_order: int = 0
    is_active: bool = True
    is_trial_available: bool = False
    tier_level: int = 1
    traffic_limit_gb: int = 0
    device_limit: int = 1
    device_price_kopeks: int | None = None
    max_device_limit: int | None = None
    period_prices: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False, server_default=text("'{}'"))
    )
    allowed_squads: list[str] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False, server_default=text("'[]'"))
    )
    server_traffic_limits: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False, server_default=text("'{}'"))
    )
    allow_traffic_topup: bool = True
    traffic_topup_enabled: bool = False
    traffic_topup_packages: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False, server_default=text("'{}'"))
    )
    max_topup_traffic_gb: int = 0
    is_daily: bool = False
    daily_price_kopeks: int = 0
    custom_days_enabled: bool = False
    price_per_day_kopeks: int = 0
    min_days: int = 1
    max_days: int = 365
    custom_traffic_enabled: bool = False
    traffic_price_per_gb_kopeks: int = 0
    min_traffic_gb: int = 1
    max_traffic_gb: int = 1000
    traffic_reset_mode: str | None = Field(default=None, sa_type=String(20))
    external_squad_uuid: str | None = Field(default=None, sa_type=String(36))
    lava_product_id: str | None = Field(default=None, sa_type=String(255))
    show_in_gift: bool = True
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class TariffPromoGroup(SQLModel, table=True):
    """A promo group allowed to buy a tariff. Deleting the tariff deletes its rows; a promo
    group that is the *only* group of some tariff cannot be deleted (RESTRICT)."""

    __tablename__ = "tariff_promo_groups"

    tariff_id: int = Field(
        sa_column=Column(Integer, ForeignKey("tariffs.id", ondelete="CASCADE"), primary_key=True)
    )
    promo_group_id: int = Field(
        sa_column=Column(
            Integer,
            ForeignKey("promo_groups.id", ondelete="RESTRICT"),
            primary_key=True,
            index=True,
        )
    )
