"""welcome_texts: the welcome text table"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "welcome_texts_0001"
down_revision = None
branch_labels = ("welcome_texts",)
depends_on = "core_0001"


def upgrade() -> None:
    op.create_table(
        "welcome_texts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("text_content", sa.Text, nullable=False),
        sa.Column("is_active", sa.Boolean, nullable=False),
        sa.Column("is_enabled", sa.Boolean, nullable=False),
        sa.Column("created_by", sa.Integer, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_welcome_texts_created_at_id", "welcome_texts", ["created_at", "id"])
    op.create_index("ix_welcome_texts_is_active", "welcome_texts", ["is_active"])


def downgrade() -> None:
    op.drop_table("welcome_texts")
