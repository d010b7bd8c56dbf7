"""pay_overpay: the uploaded client certificate"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "pay_overpay_0001"
down_revision = None
branch_labels = ("pay_overpay",)
depends_on = "core_0001"


def upgrade() -> None:
    op.create_table(
        "overpay_certificates",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("content", sa.LargeBinary, nullable=False),
        sa.Column("passphrase", sa.String(255), nullable=True),
        sa.Column("subject", sa.String(1024), nullable=False),
        sa.Column("not_valid_after", UTCDateTime, nullable=False),
        sa.Column("has_chain", sa.Boolean, nullable=False),
        sa.Column("filename", sa.String(255), nullable=True),
        sa.Column("uploaded_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("overpay_certificates")
