"""pinned_messages: messages, their broadcast and unpin runs, one row per recipient"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "pinned_messages_0001"
down_revision = None
branch_labels = ("pinned_messages",)
depends_on = "users_0001"

ACTIVE = sa.text("is_active")


def _fk(name: str, target: str, ondelete: str, *, nullable: bool) -> sa.Column[Any]:
    return sa.Column(name, sa.Integer, sa.ForeignKey(target, ondelete=ondelete), nullable=nullable)


def _zero(name: str) -> sa.Column[Any]:
    return sa.Column(name, sa.Integer, nullable=False, server_default="0")


def upgrade() -> None:
    op.create_table(
        "pinned_messages",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("content", sa.Text, nullable=False, server_default=""),
        sa.Column("media_type", sa.String(10), nullable=True),
        sa.Column("media_file_id", sa.String(255), nullable=True),
        sa.Column("send_before_menu", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("send_on_every_start", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("is_active", sa.Boolean, nullable=False, server_default=sa.false()),
        _fk("created_by", "users.id", "SET NULL", nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=True),
    )
    op.create_index(
        "uq_pinned_messages_active",
        "pinned_messages",
        ["is_active"],
        unique=True,
        sqlite_where=ACTIVE,
        postgresql_where=ACTIVE,
    )
    op.create_index("ix_pinned_messages_created_at", "pinned_messages", ["created_at"])

    op.create_table(
        "pinned_message_runs",
        sa.Column("id", sa.Integer, primary_key=True),
        _fk("message_id", "pinned_messages.id", "SET NULL", nullable=True),
        sa.Column("kind", sa.String(10), nullable=False, server_default="broadcast"),
        sa.Column("content", sa.Text, nullable=False, server_default=""),
        sa.Column("media_type", sa.String(10), nullable=True),
        sa.Column("media_file_id", sa.String(255), nullable=True),
        sa.Column("status", sa.String(20), nullable=False, server_default="queued"),
        _zero("total_count"),
        _zero("sent_count"),
        _zero("failed_count"),
        _zero("blocked_count"),
        _fk("created_by", "users.id", "SET NULL", nullable=True),
        sa.Column("lease_until", UTCDateTime, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("started_at", UTCDateTime, nullable=True),
        sa.Column("completed_at", UTCDateTime, nullable=True),
    )
    op.create_index("ix_pinned_message_runs_status", "pinned_message_runs", ["status"])

    op.create_table(
        "pinned_message_deliveries",
        sa.Column("id", sa.Integer, primary_key=True),
        _fk("run_id", "pinned_message_runs.id", "CASCADE", nullable=False),
        _fk("user_id", "users.id", "CASCADE", nullable=False),
        sa.Column("messenger_id", sa.BigInteger, nullable=False),
        sa.Column("state", sa.String(10), nullable=False, server_default="pending"),
        sa.Column("chat_message_id", sa.BigInteger, nullable=True),
        sa.Column("error", sa.String(255), nullable=True),
        sa.Column("done_at", UTCDateTime, nullable=True),
        sa.UniqueConstraint("run_id", "user_id", name="uq_pinned_message_deliveries_run_user"),
    )
    op.create_index(
        "ix_pinned_message_deliveries_state", "pinned_message_deliveries", ["run_id", "state", "id"]
    )
    op.create_index("ix_pinned_message_deliveries_user_id", "pinned_message_deliveries", ["user_id"])


def downgrade() -> None:
    op.drop_table("pinned_message_deliveries")
    op.drop_table("pinned_message_runs")
    op.drop_table("pinned_messages")
