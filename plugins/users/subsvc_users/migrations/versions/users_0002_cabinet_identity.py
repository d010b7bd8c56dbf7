"""users: cabinet identity columns (auth type, verified e-mail, password hash, last login)"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "users_0002"
down_revision = "users_0001"


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("auth_type", sa.String(20), nullable=False, server_default="messenger"))
        batch.add_column(sa.Column("email_verified", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("email_verified_at", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("email_verification_source", sa.String(32), nullable=True))
        batch.add_column(sa.Column("password_hash", sa.String(255), nullable=True))
        batch.add_column(sa.Column("cabinet_last_login", UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        for column in (
            "cabinet_last_login",
            "password_hash",
            "email_verification_source",
            "email_verified_at",
            "email_verified",
            "auth_type",
        ):
            batch.drop_column(column)
