"""core: no index on the outbox's event type

Nothing looks events up by type (the dispatcher claims by id, webhook deliveries join the
events just written), yet every event paid for the index twice: when written and when
marked dispatched (a mark is never a heap-only update: the pending index's predicate names
``dispatched_at``).
"""

from __future__ import annotations

from alembic import op

revision = "core_0004"
down_revision = "core_0003"


def upgrade() -> None:
    op.drop_index("ix_outbox_events_event_type", table_name="outbox_events")


def downgrade() -> None:
    op.create_index("ix_outbox_events_event_type", "outbox_events", ["event_type"])
