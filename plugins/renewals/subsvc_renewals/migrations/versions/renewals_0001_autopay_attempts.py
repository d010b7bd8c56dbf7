"""renewals: autopay's attempts, one per subscription term

Revision ID: renewals_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "renewals_0001"
down_revision = None
branch_labels = ("renewals",)
depends_on = ("subscriptions_0001",)


def upgrade() -> None:
    op.create_table(
        "renewal_autopay_attempts",
        sa.Column(
            "subscription_id",
            sa.Integer,
            sa.ForeignKey("subscriptions.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("term_end", UTCDateTime, primary_key=True),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("amount_kopeks", sa.BigInteger, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("renewal_autopay_attempts")
