"""billing: the transaction table, with indexes for the list filters and the daily sums"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "billing_0001"
down_revision = None
branch_labels = ("billing",)
depends_on = "users_0001"

INDEXES = {
    "ix_transactions_user_id_created_at": ["user_id", "created_at"],
    "ix_transactions_type_created_at": ["type", "created_at"],
    "ix_transactions_created_at": ["created_at"],
}


def upgrade() -> None:
    op.create_table(
        "transactions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("type", sa.String(30), nullable=False),
        sa.Column("amount_kopeks", sa.BigInteger, nullable=False),
        sa.Column("description", sa.Text, nullable=True),
        sa.Column("payment_method", sa.String(50), nullable=True),
        sa.Column("external_id", sa.String(255), nullable=True),
        sa.Column("is_completed", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("balance_after_kopeks", sa.BigInteger, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("completed_at", UTCDateTime, nullable=True),
        sa.UniqueConstraint(
            "payment_method", "external_id", name="uq_transactions_payment_method_external_id"
        ),
    )
    for name, columns in INDEXES.items():
        op.create_index(name, "transactions", columns)


def downgrade() -> None:
    for name in reversed(INDEXES):
        op.drop_index(name, table_name="transactions")
    op.drop_table("transactions")
