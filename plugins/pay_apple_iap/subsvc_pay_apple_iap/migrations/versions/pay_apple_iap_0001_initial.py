"""pay_apple_iap: the Apple transactions credited, beside their payments"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "pay_apple_iap_0001"
down_revision = None
branch_labels = ("pay_apple_iap",)
depends_on = ("payments_0001",)

TABLE = "apple_iap_transactions"


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "payment_id",
            sa.Integer,
            sa.ForeignKey("payments.id", ondelete="CASCADE"),
            nullable=False,
            unique=True,
        ),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("transaction_id", sa.String(64), nullable=False, unique=True),
        sa.Column("original_transaction_id", sa.String(64), nullable=False),
        sa.Column("product_id", sa.String(255), nullable=False),
        sa.Column("amount_kopeks", sa.BigInteger, nullable=False),
        sa.Column("price", sa.BigInteger, nullable=True),
        sa.Column("currency", sa.String(3), nullable=True),
        sa.Column("environment", sa.String(20), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("purchased_at", UTCDateTime, nullable=True),
        sa.Column("revoked_at", UTCDateTime, nullable=True),
        sa.Column("revocation_reason", sa.Integer, nullable=True),
        sa.Column("consumption_requested_at", UTCDateTime, nullable=True),
        sa.Column("reconciled_at", UTCDateTime, nullable=True),
        sa.Column("drift", sa.String(1000), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Column("data", sa.JSON, nullable=False),
    )
    op.create_index("ix_apple_iap_transactions_user_id", TABLE, ["user_id"])
    op.create_index("ix_apple_iap_transactions_original_transaction_id", TABLE, ["original_transaction_id"])


def downgrade() -> None:
    op.drop_table(TABLE)
