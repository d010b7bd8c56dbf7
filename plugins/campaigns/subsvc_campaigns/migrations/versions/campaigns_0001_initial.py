"""campaigns: advertising campaigns and their registrations"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "campaigns_0001"
down_revision = None
branch_labels = ("campaigns",)
depends_on = ("users_0001", "tariffs_0001")


def upgrade() -> None:
    op.create_table(
        "advertising_campaigns",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("start_parameter", sa.String(64), nullable=False, unique=True),
        sa.Column("bonus_type", sa.String(16), nullable=False),
        sa.Column("balance_bonus_kopeks", sa.BigInteger, nullable=False),
        sa.Column("subscription_duration_days", sa.Integer, nullable=True),
        sa.Column("subscription_traffic_gb", sa.Integer, nullable=True),
        sa.Column("subscription_device_limit", sa.Integer, nullable=True),
        sa.Column("subscription_squads", sa.JSON, nullable=False),
        sa.Column("tariff_id", sa.Integer, sa.ForeignKey("tariffs.id", ondelete="SET NULL"), nullable=True),
        sa.Column("tariff_duration_days", sa.Integer, nullable=True),
        sa.Column("is_active", sa.Boolean, nullable=False),
        sa.Column(
            "partner_user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "advertising_campaign_registrations",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "campaign_id",
            sa.Integer,
            sa.ForeignKey("advertising_campaigns.id", ondelete="RESTRICT"),
            nullable=False,
        ),
        sa.Column(
            "user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, unique=True
        ),
        sa.Column("bonus_type", sa.String(16), nullable=False),
        sa.Column("balance_bonus_kopeks", sa.BigInteger, nullable=False),
        sa.Column("subscription_duration_days", sa.Integer, nullable=True),
        sa.Column("tariff_id", sa.Integer, nullable=True),
        sa.Column("tariff_duration_days", sa.Integer, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index(
        "ix_campaign_registrations_campaign_created",
        "advertising_campaign_registrations",
        ["campaign_id", "created_at"],
    )


def downgrade() -> None:
    op.drop_table("advertising_campaign_registrations")
    op.drop_table("advertising_campaigns")
