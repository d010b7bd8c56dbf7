"""addons: the names users give their devices

Revision ID: addons_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "addons_0001"
down_revision = None
branch_labels = ("addons",)
depends_on = ("users_0001",)


def upgrade() -> None:
    op.create_table(
        "device_names",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("hwid", sa.String(255), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("device_names")
