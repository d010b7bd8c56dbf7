"""hello: greetings"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "hello_0001"
down_revision = None
branch_labels = ("hello",)
depends_on = "core_0001"  # or the heads of the plugins it requires, e.g. ("users_0001",)


def upgrade() -> None:
    op.create_table(
        "hello_greetings",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("language", sa.String(10), nullable=False, unique=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("hello_greetings")
