"""campaigns: running totals (per campaign, per day, the counted payments), backfilled"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from subsvc_campaigns.totals import backfill_totals

from subsvc.db.types import UTCDateTime

revision = "campaigns_0002"
down_revision = "campaigns_0001"
branch_labels = None
depends_on = ("billing_0001",)


def _campaign() -> sa.ForeignKey:
    return sa.ForeignKey("advertising_campaigns.id", ondelete="CASCADE")


def upgrade() -> None:
    op.create_table(
        "campaign_totals",
        sa.Column("campaign_id", sa.Integer, _campaign(), primary_key=True),
        *(
            sa.Column(name, sa.BigInteger, nullable=False, server_default="0")
            for name in ("registrations", "balance_kopeks", "subscriptions", "tariffs")
        ),
        sa.Column("last_registration", UTCDateTime, nullable=True),
        *(
            sa.Column(name, sa.BigInteger, nullable=False, server_default="0")
            for name in ("revenue_kopeks", "paid_users", "first_payments_kopeks")
        ),
    )
    op.create_table(
        "campaign_days",
        sa.Column("campaign_id", sa.Integer, _campaign(), primary_key=True),
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("registrations", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("revenue_kopeks", sa.BigInteger, nullable=False, server_default="0"),
    )
    op.create_table(
        "campaign_payments",
        sa.Column("transaction_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("campaign_id", sa.Integer, _campaign(), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("amount_kopeks", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_campaign_payments_user", "campaign_payments", ["user_id"])
    backfill_totals(op.get_bind())


def downgrade() -> None:
    op.drop_table("campaign_payments")
    op.drop_table("campaign_days")
    op.drop_table("campaign_totals")
