"""referrals: earnings and settings"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "referrals_0001"
down_revision = None
branch_labels = ("referrals",)
depends_on = ("users_0001", "billing_0001")


def upgrade() -> None:
    op.create_table(
        "referral_earnings",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("referral_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("amount_kopeks", sa.BigInteger, nullable=False),
        sa.Column("reason", sa.String(64), nullable=False),
        sa.Column("key", sa.String(128), nullable=False, unique=True),
        sa.Column("transaction_id", sa.Integer, nullable=True),
        sa.Column("campaign_id", sa.Integer, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_referral_earnings_user_created", "referral_earnings", ["user_id", "created_at"])
    op.create_index("ix_referral_earnings_pair", "referral_earnings", ["user_id", "referral_id"])
    op.create_index("ix_referral_earnings_referral_id", "referral_earnings", ["referral_id"])
    op.create_index("ix_referral_earnings_campaign_id", "referral_earnings", ["campaign_id"])
    op.create_table(
        "referral_first_topups",
        sa.Column(
            "referee_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
            autoincrement=False,
        ),
        sa.Column("referrer_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("payment_id", sa.Integer, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_referral_first_topups_referrer_id", "referral_first_topups", ["referrer_id"])
    op.create_table(
        "referral_settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.JSON, nullable=True),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("referral_settings")
    op.drop_table("referral_first_topups")
    op.drop_table("referral_earnings")
