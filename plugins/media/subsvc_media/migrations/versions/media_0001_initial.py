"""media: media_uploads (every file staged through the messenger and its uploader)"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "media_0001"
down_revision = None
branch_labels = ("media",)
depends_on = "users_0001"


def upgrade() -> None:
    op.create_table(
        "media_uploads",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("file_id", sa.String(255), nullable=False, unique=True),
        sa.Column("file_unique_id", sa.String(255), nullable=True),
        sa.Column("media_type", sa.String(16), nullable=False),
        sa.Column(
            "uploader_user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column(
            "uploader_token_id",
            sa.Integer,
            sa.ForeignKey("web_api_tokens.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_media_uploads_uploader_user_id", "media_uploads", ["uploader_user_id"])


def downgrade() -> None:
    op.drop_index("ix_media_uploads_uploader_user_id", table_name="media_uploads")
    op.drop_table("media_uploads")
