"""ticket_notifications: in-app notifications, administrators' read state, messenger
deliveries, SLA reminders"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "ticket_notifications_0001"
down_revision = None
branch_labels = ("ticket_notifications",)
depends_on = "tickets_0001"

ADMIN_ROWS = sa.text("is_for_admin")


def _ticket_fk(**options: object) -> sa.Column[int]:
    return sa.Column(
        "ticket_id", sa.Integer, sa.ForeignKey("tickets.id", ondelete="CASCADE"), nullable=False, **options
    )


def _user_fk(name: str, **options: object) -> sa.Column[int]:
    return sa.Column(
        name, sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, **options
    )


def upgrade() -> None:
    op.create_table(
        "ticket_notifications",
        sa.Column("id", sa.Integer, primary_key=True),
        _ticket_fk(),
        _user_fk("user_id"),
        sa.Column("notification_type", sa.String(20), nullable=False),
        sa.Column("message", sa.Text, nullable=True),
        sa.Column("is_for_admin", sa.Boolean, nullable=False),
        sa.Column("is_read", sa.Boolean, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("read_at", UTCDateTime, nullable=True),
    )
    op.create_index(
        "ix_ticket_notifications_user", "ticket_notifications", ["user_id", "is_for_admin", "is_read", "id"]
    )
    op.create_index(
        "ix_ticket_notifications_admin_id",
        "ticket_notifications",
        ["id"],
        postgresql_where=ADMIN_ROWS,
        sqlite_where=ADMIN_ROWS,
    )
    op.create_index(
        "ix_ticket_notifications_ticket", "ticket_notifications", ["ticket_id", "is_for_admin", "id"]
    )
    op.create_table(
        "ticket_notification_admin_marks",
        _user_fk("admin_user_id", primary_key=True),
        sa.Column("read_up_to_id", sa.Integer, nullable=False),
        sa.Column("marked_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "ticket_notification_admin_reads",
        _user_fk("admin_user_id", primary_key=True),
        sa.Column(
            "notification_id",
            sa.Integer,
            sa.ForeignKey("ticket_notifications.id", ondelete="CASCADE"),
            primary_key=True,
            nullable=False,
        ),
        sa.Column("read_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "ticket_messenger_deliveries",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.BigInteger, nullable=False, unique=True),
        sa.Column("kind", sa.String(20), nullable=False),
        _ticket_fk(),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("due_at", UTCDateTime, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("sent_at", UTCDateTime, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
    )
    op.create_index("ix_ticket_messenger_deliveries_due", "ticket_messenger_deliveries", ["status", "due_at"])
    op.create_table(
        "ticket_sla_reminders",
        _ticket_fk(primary_key=True),
        sa.Column("reminded_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ticket_sla_reminders")
    op.drop_index("ix_ticket_messenger_deliveries_due", table_name="ticket_messenger_deliveries")
    op.drop_table("ticket_messenger_deliveries")
    op.drop_table("ticket_notification_admin_reads")
    op.drop_table("ticket_notification_admin_marks")
    op.drop_index("ix_ticket_notifications_ticket", table_name="ticket_notifications")
    op.drop_index("ix_ticket_notifications_admin_id", table_name="ticket_notifications")
    op.drop_index("ix_ticket_notifications_user", table_name="ticket_notifications")
    op.drop_table("ticket_notifications")
