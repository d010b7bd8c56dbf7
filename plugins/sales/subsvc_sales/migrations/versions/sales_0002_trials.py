"""sales: trials taken, one per user

Revision ID: sales_0002
Revises: sales_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "sales_0002"
down_revision = "sales_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sales_trials",
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
            autoincrement=False,
        ),
        sa.Column("subscription_id", sa.Integer, nullable=True),
        sa.Column("price_kopeks", sa.Integer, nullable=False),
        sa.Column("activated_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sales_trials")
