"""cabinet_oauth: external identities, OAuth states, merge tokens"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "cabinet_oauth_0001"
down_revision = None
branch_labels = ("cabinet_oauth",)
depends_on = "users_0002"


def _user(name: str, *, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "oauth_identities",
        sa.Column("id", sa.Integer, primary_key=True),
        _user("user_id"),
        sa.Column("provider", sa.String(16), nullable=False),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("email", sa.String(255), nullable=True),
        sa.Column("email_verified", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("username", sa.String(255), nullable=True),
        sa.Column("display_name", sa.String(255), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("last_login_at", UTCDateTime, nullable=True),
        sa.UniqueConstraint("provider", "subject", name="uq_oauth_identities_provider_subject"),
        sa.UniqueConstraint("user_id", "provider", name="uq_oauth_identities_user_id_provider"),
    )
    op.create_table(
        "oauth_states",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("state_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("provider", sa.String(16), nullable=False),
        sa.Column("purpose", sa.String(8), nullable=False),
        _user("user_id", nullable=True),
        sa.Column("code_verifier", sa.String(128), nullable=True),
        sa.Column("redirect_uri", sa.String(2048), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_oauth_states_expires_at", "oauth_states", ["expires_at"])
    op.create_table(
        "oauth_merge_tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        _user("primary_user_id"),
        _user("secondary_user_id"),
        sa.Column("provider", sa.String(16), nullable=False),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_oauth_merge_tokens_expires_at", "oauth_merge_tokens", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_oauth_merge_tokens_expires_at", table_name="oauth_merge_tokens")
    op.drop_table("oauth_merge_tokens")
    op.drop_index("ix_oauth_states_expires_at", table_name="oauth_states")
    op.drop_table("oauth_states")
    op.drop_table("oauth_identities")
