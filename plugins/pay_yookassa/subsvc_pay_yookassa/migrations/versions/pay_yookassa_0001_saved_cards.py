"""pay_yookassa: the cards YooKassa saved for recurrent payments"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "pay_yookassa_0001"
down_revision = None
branch_labels = ("pay_yookassa",)
depends_on = "users_0001"

TABLE = "yookassa_saved_cards"
INDEX = "ix_yookassa_saved_cards_user_id_is_active"


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("payment_method_id", sa.String(64), nullable=False),
        sa.Column("method_type", sa.String(32), nullable=False),
        sa.Column("card_last4", sa.String(4), nullable=True),
        sa.Column("card_type", sa.String(32), nullable=True),
        sa.Column("title", sa.String(255), nullable=True),
        sa.Column("payment_id", sa.Integer, nullable=True),
        sa.Column("is_active", sa.Boolean, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.UniqueConstraint("payment_method_id", name="uq_yookassa_saved_cards_payment_method_id"),
    )
    op.create_index(INDEX, TABLE, ["user_id", "is_active"])


def downgrade() -> None:
    op.drop_index(INDEX, table_name=TABLE)
    op.drop_table(TABLE)
