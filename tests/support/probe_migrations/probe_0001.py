"""probe: notes table (test plugin)

Revision ID: probe_0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "probe_0001"
down_revision = None
branch_labels = ("probe",)
depends_on = "core_0001"


def upgrade() -> None:
    op.create_table(
        "probe_notes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("text", sa.String, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("probe_notes")
