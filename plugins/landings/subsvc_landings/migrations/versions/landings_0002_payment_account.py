"""landings: the one account guest payments are opened for (no buyer's account before payment)"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "landings_0002"
down_revision = "landings_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "landing_payment_account",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL")),
    )


def downgrade() -> None:
    op.drop_table("landing_payment_account")
