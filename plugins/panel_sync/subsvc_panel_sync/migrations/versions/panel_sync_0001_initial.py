"""panel_sync: subscription sync states, full-sync runs, the control row"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "panel_sync_0001"
down_revision = None
branch_labels = ("panel_sync",)
depends_on = "subscriptions_0001"


def upgrade() -> None:
    op.create_table(
        "panel_sync_states",
        sa.Column(
            "subscription_id",
            sa.Integer,
            sa.ForeignKey("subscriptions.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("synced_version", sa.Integer, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", UTCDateTime, nullable=True),
        sa.Column("panel_uuid", sa.String(64), nullable=True),
        sa.Column("synced_at", UTCDateTime, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_panel_sync_states_due", "panel_sync_states", ["status", "next_attempt_at"])
    op.create_index("ix_panel_sync_states_user_id", "panel_sync_states", ["user_id"])
    op.create_table(
        "panel_sync_runs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("mode", sa.String(20), nullable=True),
        sa.Column("reason", sa.String(20), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        *(
            sa.Column(name, sa.Integer, nullable=False)
            for name in ("total", "processed", "created", "updated", "disabled", "unchanged", "error_count")
        ),
        sa.Column("errors", sa.JSON, nullable=False),
        sa.Column("cursor", sa.JSON, nullable=False),
        sa.Column("result", sa.JSON, nullable=False),
        sa.Column("message", sa.Text, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("started_at", UTCDateTime, nullable=True),
        sa.Column("heartbeat_at", UTCDateTime, nullable=True),
        sa.Column("finished_at", UTCDateTime, nullable=True),
    )
    op.create_index("ix_panel_sync_runs_status_heartbeat", "panel_sync_runs", ["status", "heartbeat_at"])
    op.create_table(
        "panel_sync_control",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("auto_enabled", sa.Boolean, nullable=False),
        sa.Column("next_auto_at", UTCDateTime, nullable=True),
        sa.Column("current_run_id", sa.Integer, nullable=True),
        sa.Column("last_auto_run_id", sa.Integer, nullable=True),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("panel_sync_control")
    op.drop_index("ix_panel_sync_runs_status_heartbeat", table_name="panel_sync_runs")
    op.drop_table("panel_sync_runs")
    op.drop_index("ix_panel_sync_states_user_id", table_name="panel_sync_states")
    op.drop_index("ix_panel_sync_states_due", table_name="panel_sync_states")
    op.drop_table("panel_sync_states")
