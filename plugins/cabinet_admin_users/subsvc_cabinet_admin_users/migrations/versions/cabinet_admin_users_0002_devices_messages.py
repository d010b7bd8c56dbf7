"""cabinet_admin_users: local device names per subscription, messages sent to users"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "cabinet_admin_users_0002"
down_revision = "cabinet_admin_users_0001"
branch_labels = None
depends_on = "subscriptions_0001"


def upgrade() -> None:
    op.create_table(
        "admin_device_names",
        sa.Column(
            "subscription_id",
            sa.Integer,
            sa.ForeignKey("subscriptions.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("hwid", sa.String(255), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "admin_user_messages",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("chat_id", sa.BigInteger, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("sent_by", sa.Integer, nullable=True),
        sa.Column("message_id", sa.BigInteger, nullable=True),
        sa.Column("next_attempt_at", UTCDateTime, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("sent_at", UTCDateTime, nullable=True),
    )
    op.create_index("ix_admin_user_messages_user_id", "admin_user_messages", ["user_id"])
    op.create_index("ix_admin_user_messages_status", "admin_user_messages", ["status"])


def downgrade() -> None:
    op.drop_table("admin_user_messages")
    op.drop_table("admin_device_names")
