"""tariffs: the tariff table (at most one trial tariff), its promo-group restrictions, and an
index on subscriptions.tariff_id for the per-tariff counts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "tariffs_0001"
down_revision = None
branch_labels = ("tariffs",)
depends_on = ("promo_groups_0001", "subscriptions_0001", "servers_0001")

SUBSCRIPTIONS_INDEX = "ix_subscriptions_tariff_id"


def upgrade() -> None:
    false, true = sa.false(), sa.true()
    op.create_table(
        "tariffs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("description", sa.Text, nullable=True),
        sa.Column("display_order", sa.Integer, nullable=False, server_default="0"),
        sa.Column("is_active", sa.Boolean, nullable=False, server_default=true),
        sa.Column("is_trial_available", sa.Boolean, nullable=False, server_default=false),
        sa.Column("tier_level", sa.Integer, nullable=False, server_default="1"),
        sa.Column("traffic_limit_gb", sa.Integer, nullable=False, server_default="0"),
        sa.Column("device_limit", sa.Integer, nullable=False, server_default="1"),
        sa.Column("device_price_kopeks", sa.Integer, nullable=True),
        sa.Column("max_device_limit", sa.Integer, nullable=True),
        sa.Column("period_prices", sa.JSON, nullable=False, server_default=sa.text("'{}'")),
        sa.Column("allowed_squads", sa.JSON, nullable=False, server_default=sa.text("'[]'")),
        sa.Column("server_traffic_limits", sa.JSON, nullable=False, server_default=sa.text("'{}'")),
        sa.Column("allow_traffic_topup", sa.Boolean, nullable=False, server_default=true),
        sa.Column("traffic_topup_enabled", sa.Boolean, nullable=False, server_default=false),
        sa.Column("traffic_topup_packages", sa.JSON, nullable=False, server_default=sa.text("'{}'")),
        sa.Column("max_topup_traffic_gb", sa.Integer, nullable=False, server_default="0"),
        sa.Column("is_daily", sa.Boolean, nullable=False, server_default=false),
        sa.Column("daily_price_kopeks", sa.Integer, nullable=False, server_default="0"),
        sa.Column("custom_days_enabled", sa.Boolean, nullable=False, server_default=false),
        sa.Column("price_per_day_kopeks", sa.Integer, nullable=False, server_default="0"),
        sa.Column("min_days", sa.Integer, nullable=False, server_default="1"),
        sa.Column("max_days", sa.Integer, nullable=False, server_default="365"),
        sa.Column("custom_traffic_enabled", sa.Boolean, nullable=False, server_default=false),
        sa.Column("traffic_price_per_gb_kopeks", sa.Integer, nullable=False, server_default="0"),
        sa.Column("min_traffic_gb", sa.Integer, nullable=False, server_default="1"),
        sa.Column("max_traffic_gb", sa.Integer, nullable=False, server_default="1000"),
        sa.Column("traffic_reset_mode", sa.String(20), nullable=True),
        sa.Column("external_squad_uuid", sa.String(36), nullable=True),
        sa.Column("show_in_gift", sa.Boolean, nullable=False, server_default=true),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_tariffs_display_order_id", "tariffs", ["display_order", "id"])
    op.create_index(
        "uq_tariffs_single_trial",
        "tariffs",
        ["is_trial_available"],
        unique=True,
        postgresql_where=sa.text("is_trial_available"),
        sqlite_where=sa.text("is_trial_available"),
    )
    op.create_table(
        "tariff_promo_groups",
        sa.Column("tariff_id", sa.Integer, sa.ForeignKey("tariffs.id", ondelete="CASCADE"), primary_key=True),
        sa.Column(
            "promo_group_id",
            sa.Integer,
            sa.ForeignKey("promo_groups.id", ondelete="RESTRICT"),
            primary_key=True,
        ),
    )
    op.create_index("ix_tariff_promo_groups_promo_group_id", "tariff_promo_groups", ["promo_group_id"])
    op.create_index(SUBSCRIPTIONS_INDEX, "subscriptions", ["tariff_id"])


def downgrade() -> None:
    op.drop_index(SUBSCRIPTIONS_INDEX, table_name="subscriptions")
    op.drop_index("ix_tariff_promo_groups_promo_group_id", table_name="tariff_promo_groups")
    op.drop_table("tariff_promo_groups")
    op.drop_index("uq_tariffs_single_trial", table_name="tariffs")
    op.drop_index("ix_tariffs_display_order_id", table_name="tariffs")
    op.drop_table("tariffs")
