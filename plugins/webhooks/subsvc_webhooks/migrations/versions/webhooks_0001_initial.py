"""webhooks: the webhook endpoints and their delivery attempts"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "webhooks_0001"
down_revision = None
branch_labels = ("webhooks",)


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("event_type", sa.String(50), nullable=False),
        sa.Column("secret", sa.String(128), nullable=True),
        sa.Column("description", sa.Text, nullable=True),
        sa.Column("is_active", sa.Boolean, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Column("last_triggered_at", UTCDateTime, nullable=True),
        sa.Column("success_count", sa.Integer, nullable=False),
        sa.Column("failure_count", sa.Integer, nullable=False),
        sa.Column("failing_since", UTCDateTime, nullable=True),
        sa.Column("deactivated_at", UTCDateTime, nullable=True),
        sa.Column("deactivation_reason", sa.Text, nullable=True),
    )
    op.create_index("ix_webhooks_is_active_event_type", "webhooks", ["is_active", "event_type"])
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("webhook_id", sa.Integer, sa.ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False),
        sa.Column("event_id", sa.Integer, nullable=True),
        sa.Column("delivery_key", sa.String(64), nullable=False),
        sa.Column("event_type", sa.String(100), nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("attempt_number", sa.Integer, nullable=False),
        sa.Column("response_status", sa.Integer, nullable=True),
        sa.Column("response_body", sa.Text, nullable=True),
        sa.Column("error_message", sa.Text, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("delivered_at", UTCDateTime, nullable=True),
        sa.Column("next_retry_at", UTCDateTime, nullable=True),
    )
    op.create_index("ix_webhook_deliveries_webhook_id_id", "webhook_deliveries", ["webhook_id", "id"])
    op.create_index(
        "ix_webhook_deliveries_status_next_retry_at", "webhook_deliveries", ["status", "next_retry_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_webhook_deliveries_status_next_retry_at", table_name="webhook_deliveries")
    op.drop_index("ix_webhook_deliveries_webhook_id_id", table_name="webhook_deliveries")
    op.drop_table("webhook_deliveries")
    op.drop_index("ix_webhooks_is_active_event_type", table_name="webhooks")
    op.drop_table("webhooks")
