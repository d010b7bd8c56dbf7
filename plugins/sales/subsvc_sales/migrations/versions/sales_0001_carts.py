"""sales: saved carts

Revision ID: sales_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "sales_0001"
down_revision = None
branch_labels = ("sales",)
depends_on = ("users_0001",)


def upgrade() -> None:
    op.create_table(
        "sales_carts",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("subscription_key", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("mode", sa.String(40), nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sales_carts")
