"""users: when the user blocked the bot (messenger_blocked_at)

Revision ID: users_0003
Revises: users_0002
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "users_0003"
down_revision = "users_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("messenger_blocked_at", UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("messenger_blocked_at")
