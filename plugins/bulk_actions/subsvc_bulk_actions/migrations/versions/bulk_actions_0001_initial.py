"""bulk_actions: bulk runs and their items"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "bulk_actions_0001"
down_revision = None
branch_labels = ("bulk_actions",)
depends_on = "core_0001"


def upgrade() -> None:
    op.create_table(
        "bulk_runs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("params", sa.JSON, nullable=False),
        sa.Column("dry_run", sa.Boolean, nullable=False),
        sa.Column("target", sa.String(20), nullable=False),
        sa.Column("actor_user_id", sa.Integer, nullable=False),
        sa.Column("idempotency_key", sa.String(128), nullable=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("success_count", sa.Integer, nullable=False),
        sa.Column("error_count", sa.Integer, nullable=False),
        sa.Column("skipped_count", sa.Integer, nullable=False),
        sa.Column("lease_owner", sa.String(64), nullable=True),
        sa.Column("lease_until", UTCDateTime, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("completed_at", UTCDateTime, nullable=True),
        sa.UniqueConstraint("actor_user_id", "idempotency_key", name="uq_bulk_runs_actor_key"),
    )
    op.create_index("ix_bulk_runs_status", "bulk_runs", ["status"])
    op.create_table(
        "bulk_run_items",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("bulk_runs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("user_id", sa.BigInteger, nullable=False),
        sa.Column("subscription_id", sa.BigInteger, nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("message", sa.String(500), nullable=True),
        sa.Column("username", sa.String(255), nullable=True),
        sa.Column("done_at", UTCDateTime, nullable=True),
        sa.UniqueConstraint("run_id", "position", name="uq_bulk_run_items_position"),
    )
    op.create_index("ix_bulk_run_items_status", "bulk_run_items", ["run_id", "status", "position"])


def downgrade() -> None:
    op.drop_table("bulk_run_items")
    op.drop_table("bulk_runs")
