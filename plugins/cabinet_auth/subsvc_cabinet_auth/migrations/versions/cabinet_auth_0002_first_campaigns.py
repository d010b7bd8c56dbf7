"""cabinet_auth: the first campaign of each user (first-touch attribution)"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "cabinet_auth_0002"
down_revision = "cabinet_auth_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "cabinet_first_campaigns",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, unique=True
        ),
        sa.Column("campaign_slug", sa.String(64), nullable=False),
        sa.Column("source", sa.String(32), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("cabinet_first_campaigns")
