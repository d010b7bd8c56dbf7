"""support: the support settings table"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "support_0001"
down_revision = None
branch_labels = ("support",)
depends_on = "core_0001"


def upgrade() -> None:
    op.create_table(
        "support_settings",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("system_mode", sa.String(16), nullable=True),
        sa.Column("menu_enabled", sa.Boolean, nullable=True),
        sa.Column("info_texts", sa.JSON, nullable=True),
        sa.Column("moderators", sa.JSON, nullable=True),
        sa.Column("admin_ticket_notifications_enabled", sa.Boolean, nullable=True),
        sa.Column("user_ticket_notifications_enabled", sa.Boolean, nullable=True),
        sa.Column("cabinet_user_notifications_enabled", sa.Boolean, nullable=True),
        sa.Column("cabinet_admin_notifications_enabled", sa.Boolean, nullable=True),
        sa.Column("sla_enabled", sa.Boolean, nullable=True),
        sa.Column("sla_minutes", sa.Integer, nullable=True),
        sa.Column("sla_check_interval_seconds", sa.Integer, nullable=True),
        sa.Column("sla_reminder_cooldown_minutes", sa.Integer, nullable=True),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("support_settings")
