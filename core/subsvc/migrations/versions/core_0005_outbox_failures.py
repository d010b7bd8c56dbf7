"""core: failed deliveries of events to subscribers, retried with backoff

One row per (event, subscriber) whose call failed: the attempts so far, when to call it
again (``NULL``: given up after the last attempt), the last error. A retry that succeeds
deletes the row; the dispatcher claims the due rows through the partial index.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "core_0005"
down_revision = "core_0004"

RETRYING = sa.text("next_attempt_at IS NOT NULL")


def upgrade() -> None:
    op.create_table(
        "outbox_failures",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("outbox_events.id"), nullable=False),
        sa.Column("subscriber", sa.String(200), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", UTCDateTime, nullable=True),
        sa.Column("last_error", sa.Text, nullable=False),
        sa.Column("failed_at", UTCDateTime, nullable=False),
        sa.Column("last_attempt_at", UTCDateTime, nullable=False),
        sa.UniqueConstraint("event_id", "subscriber", name="uq_outbox_failures_event_subscriber"),
    )
    op.create_index(
        "ix_outbox_failures_due",
        "outbox_failures",
        ["next_attempt_at"],
        postgresql_where=RETRYING,
        sqlite_where=RETRYING,
    )


def downgrade() -> None:
    op.drop_index("ix_outbox_failures_due", table_name="outbox_failures")
    op.drop_table("outbox_failures")
