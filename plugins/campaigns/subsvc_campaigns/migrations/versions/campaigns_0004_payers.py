"""campaigns: each registered user's paid total, indexed for the chart's top payers, backfilled"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from subsvc_campaigns.totals import backfill_payers

revision = "campaigns_0004"
down_revision = "campaigns_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    campaign = sa.ForeignKey("advertising_campaigns.id", ondelete="CASCADE")
    op.create_table(
        "campaign_payers",
        sa.Column("campaign_id", sa.Integer, campaign, primary_key=True),
        sa.Column("user_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("paid_kopeks", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_campaign_payers_top", "campaign_payers", ["campaign_id", "paid_kopeks", "user_id"])
    backfill_payers(op.get_bind())


def downgrade() -> None:
    op.drop_table("campaign_payers")
