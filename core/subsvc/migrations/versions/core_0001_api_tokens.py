"""core: API tokens of the Web API"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "core_0001"
down_revision = None
branch_labels = ("core",)


def upgrade() -> None:
    op.create_table(
        "web_api_tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("token_hash", sa.String(128), nullable=False, unique=True),
        sa.Column("token_prefix", sa.String(32), nullable=False),
        sa.Column("description", sa.Text, nullable=True),
        sa.Column("is_active", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=True),
        sa.Column("expires_at", UTCDateTime, nullable=True),
        sa.Column("last_used_at", UTCDateTime, nullable=True),
        sa.Column("last_used_ip", sa.String(64), nullable=True),
        sa.Column("created_by", sa.String(255), nullable=True),
    )
    op.create_index("ix_web_api_tokens_created_at", "web_api_tokens", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_web_api_tokens_created_at", table_name="web_api_tokens")
    op.drop_table("web_api_tokens")
