"""cabinet_admin_users: per-user administrator settings (restrictions, commission, panel link)"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "cabinet_admin_users_0001"
down_revision = None
branch_labels = ("cabinet_admin_users",)
depends_on = "users_0001"


def upgrade() -> None:
    op.create_table(
        "user_admin_settings",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("restriction_topup", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("restriction_subscription", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("restriction_reason", sa.Text, nullable=True),
        sa.Column("referral_commission_percent", sa.Integer, nullable=True),
        sa.Column("panel_uuid", sa.String(64), nullable=True),
        sa.Column("last_panel_sync", UTCDateTime, nullable=True),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("user_admin_settings")
