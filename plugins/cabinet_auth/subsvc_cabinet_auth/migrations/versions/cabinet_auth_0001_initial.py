"""cabinet_auth: refresh tokens, used one-time credentials, deep-link tokens"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "cabinet_auth_0001"
down_revision = None
branch_labels = ("cabinet_auth",)
depends_on = "users_0001"


def upgrade() -> None:
    op.create_table(
        "cabinet_refresh_tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("device_info", sa.String(255), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("revoked_at", UTCDateTime, nullable=True),
    )
    op.create_index("ix_cabinet_refresh_tokens_user_id", "cabinet_refresh_tokens", ["user_id"])
    op.create_table(
        "cabinet_used_credentials",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False, unique=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_cabinet_used_credentials_expires_at", "cabinet_used_credentials", ["expires_at"])
    op.create_table(
        "cabinet_deeplink_tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("confirmed_at", UTCDateTime, nullable=True),
    )
    op.create_index("ix_cabinet_deeplink_tokens_expires_at", "cabinet_deeplink_tokens", ["expires_at"])


def downgrade() -> None:
    op.drop_table("cabinet_deeplink_tokens")
    op.drop_table("cabinet_used_credentials")
    op.drop_table("cabinet_refresh_tokens")
