"""payments: the payment table of every provider

Revision ID: payments_0001
Revises:
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "payments_0001"
down_revision = None
branch_labels = ("payments",)
depends_on = ("users_0001", "billing_0001")

TABLE = "payments"
INDEXES = {
    "ix_payments_user_id_status_created_at": ["user_id", "status", "created_at"],
    "ix_payments_status_expires_at": ["status", "expires_at"],
    "ix_payments_created_at": ["created_at"],
}


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("provider", sa.String(50), nullable=False),
        sa.Column("method", sa.String(50), nullable=False),
        sa.Column("provider_payment_id", sa.String(255), nullable=True),
        sa.Column("amount_kopeks", sa.BigInteger, nullable=False),
        sa.Column("paid_amount_kopeks", sa.BigInteger, nullable=True),
        sa.Column("currency", sa.String(10), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("failure_reason", sa.String(255), nullable=True),
        sa.Column("idempotency_key", sa.String(128), nullable=True),
        sa.Column(
            "transaction_id",
            sa.Integer,
            sa.ForeignKey("transactions.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Column("paid_at", UTCDateTime, nullable=True),
        sa.Column("expires_at", UTCDateTime, nullable=True),
        sa.Column("flagged_late", sa.Boolean, nullable=False),
        sa.Column("data", sa.JSON, nullable=False),
        sa.UniqueConstraint(
            "provider", "provider_payment_id", name="uq_payments_provider_provider_payment_id"
        ),
        sa.UniqueConstraint("user_id", "idempotency_key", name="uq_payments_user_id_idempotency_key"),
        sa.UniqueConstraint("transaction_id", name="uq_payments_transaction_id"),
    )
    for name, columns in INDEXES.items():
        op.create_index(name, TABLE, columns)


def downgrade() -> None:
    for name in reversed(INDEXES):
        op.drop_index(name, table_name=TABLE)
    op.drop_table(TABLE)
