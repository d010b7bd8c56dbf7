"""tickets: tickets (one active per user) and their messages"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "tickets_0001"
down_revision = None
branch_labels = ("tickets",)
depends_on = "users_0001"

ACTIVE = sa.text("status <> 'closed'")
LIST_INDEXES = {
    "ix_tickets_updated_at_id": ["updated_at", "id"],
    "ix_tickets_user_updated_at_id": ["user_id", "updated_at", "id"],
    "ix_tickets_status_updated_at_id": ["status", "updated_at", "id"],
    "ix_tickets_priority_updated_at_id": ["priority", "updated_at", "id"],
}


def _fk(name: str, target: str, ondelete: str, *, nullable: bool) -> sa.Column[Any]:
    return sa.Column(name, sa.Integer, sa.ForeignKey(target, ondelete=ondelete), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "tickets",
        sa.Column("id", sa.Integer, primary_key=True),
        _fk("user_id", "users.id", "CASCADE", nullable=False),
        sa.Column("title", sa.String(255), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("priority", sa.String(20), nullable=False),
        sa.Column("user_reply_block_permanent", sa.Boolean, nullable=False),
        sa.Column("user_reply_block_until", UTCDateTime, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Column("closed_at", UTCDateTime, nullable=True),
    )
    op.create_index(
        "uq_tickets_user_active",
        "tickets",
        ["user_id"],
        unique=True,
        sqlite_where=ACTIVE,
        postgresql_where=ACTIVE,
    )
    for name, columns in LIST_INDEXES.items():
        op.create_index(name, "tickets", columns)
    op.create_table(
        "ticket_messages",
        sa.Column("id", sa.Integer, primary_key=True),
        _fk("ticket_id", "tickets.id", "CASCADE", nullable=False),
        _fk("author_user_id", "users.id", "SET NULL", nullable=True),
        sa.Column("author_token_id", sa.Integer, nullable=True),
        sa.Column("author_name", sa.String(255), nullable=True),
        sa.Column("message_text", sa.Text, nullable=False),
        sa.Column("is_from_admin", sa.Boolean, nullable=False),
        sa.Column("has_media", sa.Boolean, nullable=False),
        sa.Column("media_type", sa.String(32), nullable=True),
        sa.Column("media_file_id", sa.String(255), nullable=True),
        sa.Column("media_caption", sa.Text, nullable=True),
        sa.Column("media_items", sa.JSON, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_ticket_messages_ticket_id_id", "ticket_messages", ["ticket_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_ticket_messages_ticket_id_id", table_name="ticket_messages")
    op.drop_table("ticket_messages")
    for name in LIST_INDEXES:
        op.drop_index(name, table_name="tickets")
    op.drop_index("uq_tickets_user_active", table_name="tickets")
    op.drop_table("tickets")
