"""subscriptions: subscriptions and traffic purchases"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "subscriptions_0001"
down_revision = None
branch_labels = ("subscriptions",)
depends_on = "users_0001"


def upgrade() -> None:
    op.create_table(
        "subscriptions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("status", sa.String(20), nullable=False, server_default="active"),
        sa.Column("is_trial", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("start_date", UTCDateTime, nullable=False),
        sa.Column("end_date", UTCDateTime, nullable=False),
        sa.Column("traffic_limit_gb", sa.Integer, nullable=False, server_default="0"),
        sa.Column("traffic_used_gb", sa.Float, nullable=False, server_default="0"),
        sa.Column("purchased_traffic_gb", sa.Integer, nullable=False, server_default="0"),
        sa.Column("device_limit", sa.Integer, nullable=False, server_default="1"),
        sa.Column("connected_squads", sa.JSON, nullable=False),
        sa.Column("autopay_enabled", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("autopay_days_before", sa.Integer, nullable=True, server_default="3"),
        sa.Column("subscription_url", sa.Text, nullable=True),
        sa.Column("subscription_crypto_link", sa.Text, nullable=True),
        sa.Column("tariff_id", sa.Integer, nullable=True),
        sa.Column("short_id", sa.String(8), nullable=False, unique=True),
        sa.Column("panel_sync_state", sa.String(16), nullable=False, server_default="pending"),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_subscriptions_user_id_created_at", "subscriptions", ["user_id", "created_at"])
    op.create_index("ix_subscriptions_status_created_at", "subscriptions", ["status", "created_at"])
    op.create_index("ix_subscriptions_end_date", "subscriptions", ["end_date"])
    op.create_index("ix_subscriptions_created_at_id", "subscriptions", ["created_at", "id"])
    op.create_table(
        "traffic_purchases",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "subscription_id",
            sa.Integer,
            sa.ForeignKey("subscriptions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("traffic_gb", sa.Integer, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_traffic_purchases_subscription_id", "traffic_purchases", ["subscription_id"])


def downgrade() -> None:
    op.drop_index("ix_traffic_purchases_subscription_id", table_name="traffic_purchases")
    op.drop_table("traffic_purchases")
    op.drop_index("ix_subscriptions_created_at_id", table_name="subscriptions")
    op.drop_index("ix_subscriptions_end_date", table_name="subscriptions")
    op.drop_index("ix_subscriptions_status_created_at", table_name="subscriptions")
    op.drop_index("ix_subscriptions_user_id_created_at", table_name="subscriptions")
    op.drop_table("subscriptions")
