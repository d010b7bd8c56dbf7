"""notifications: the subscription event log"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "notifications_0001"
down_revision = None
branch_labels = ("notifications",)
depends_on = ("subscriptions_0001", "billing_0001")

TABLE = "subscription_events"
INDEXES = {
    "ix_subscription_events_occurred_at_id": ["occurred_at", "id"],
    "ix_subscription_events_user_id_occurred_at": ["user_id", "occurred_at"],
    "ix_subscription_events_event_type_occurred_at": ["event_type", "occurred_at"],
    "ix_subscription_events_subscription_id": ["subscription_id"],
    "ix_subscription_events_transaction_id": ["transaction_id"],
}


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_type", sa.String(50), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column(
            "subscription_id",
            sa.Integer,
            sa.ForeignKey("subscriptions.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column(
            "transaction_id",
            sa.Integer,
            sa.ForeignKey("transactions.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("amount_kopeks", sa.BigInteger, nullable=True),
        sa.Column("currency", sa.String(16), nullable=True),
        sa.Column("message", sa.Text, nullable=True),
        sa.Column("occurred_at", UTCDateTime, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("extra", sa.JSON, nullable=True),
    )
    for name, columns in INDEXES.items():
        op.create_index(name, TABLE, columns)


def downgrade() -> None:
    for name in reversed(INDEXES):
        op.drop_index(name, table_name=TABLE)
    op.drop_table(TABLE)
