"""cabinet_email: pending verification links, reset links and e-mail change codes"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "cabinet_email_0001"
down_revision = None
branch_labels = ("cabinet_email",)
depends_on = "users_0002"

TABLE = "cabinet_email_tokens"
INDEXES = {
    "ix_cabinet_email_tokens_user_id_purpose": ["user_id", "purpose"],
    "ix_cabinet_email_tokens_email_purpose": ["email", "purpose"],
    "ix_cabinet_email_tokens_expires_at": ["expires_at"],
}


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("purpose", sa.String(16), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
        sa.Column("email", sa.String(255), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("first_name", sa.String(64), nullable=True),
        sa.Column("language", sa.String(10), nullable=True),
        sa.Column("referral_code", sa.String(32), nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    for name, columns in INDEXES.items():
        op.create_index(name, TABLE, columns)


def downgrade() -> None:
    for name in reversed(INDEXES):
        op.drop_index(name, table_name=TABLE)
    op.drop_table(TABLE)
