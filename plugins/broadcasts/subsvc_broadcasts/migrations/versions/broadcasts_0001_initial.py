"""broadcasts: broadcasts and their recipients"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "broadcasts_0001"
down_revision = None
branch_labels = ("broadcasts",)
depends_on = "users_0001"


def upgrade() -> None:
    op.create_table(
        "broadcasts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("target_type", sa.String(100), nullable=False),
        sa.Column("message_text", sa.Text, nullable=True),
        sa.Column("has_media", sa.Boolean, nullable=False),
        sa.Column("media_type", sa.String(20), nullable=True),
        sa.Column("media_file_id", sa.String(512), nullable=True),
        sa.Column("media_caption", sa.Text, nullable=True),
        sa.Column("selected_buttons", sa.JSON, nullable=False),
        sa.Column("channel", sa.String(20), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("total_count", sa.Integer, nullable=False),
        sa.Column("sent_count", sa.Integer, nullable=False),
        sa.Column("failed_count", sa.Integer, nullable=False),
        sa.Column("blocked_count", sa.Integer, nullable=False),
        sa.Column("unknown_count", sa.Integer, nullable=False),
        sa.Column("admin_id", sa.Integer, nullable=True),
        sa.Column("admin_name", sa.String(255), nullable=True),
        sa.Column("send_at", UTCDateTime, nullable=True),
        sa.Column("lease_owner", sa.String(64), nullable=True),
        sa.Column("lease_until", UTCDateTime, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("started_at", UTCDateTime, nullable=True),
        sa.Column("completed_at", UTCDateTime, nullable=True),
    )
    op.create_index("ix_broadcasts_created_at_id", "broadcasts", ["created_at", "id"])
    op.create_index("ix_broadcasts_status_send_at", "broadcasts", ["status", "send_at"])
    op.create_table(
        "broadcast_recipients",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "broadcast_id", sa.Integer, sa.ForeignKey("broadcasts.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("messenger_id", sa.BigInteger, nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("error", sa.String(255), nullable=True),
        sa.Column("sent_at", UTCDateTime, nullable=True),
        sa.UniqueConstraint("broadcast_id", "user_id", name="uq_broadcast_recipients_user"),
    )
    op.create_index("ix_broadcast_recipients_state", "broadcast_recipients", ["broadcast_id", "state", "id"])


def downgrade() -> None:
    op.drop_table("broadcast_recipients")
    op.drop_table("broadcasts")
