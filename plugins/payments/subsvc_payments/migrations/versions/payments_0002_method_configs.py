"""payments: the payment methods' configuration (payment_method_configs, their promo groups);
the admin views' keyset indexes on payments"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "payments_0002"
down_revision = "payments_0001"
depends_on = ("promo_groups_0001",)

CONFIGS = "payment_method_configs"
LINKS = "payment_method_promo_groups"
ADMIN_INDEXES = {
    "ix_payments_created_at_id": ["created_at", "id"],
    "ix_payments_status_created_at_id": ["status", "created_at", "id"],
    "ix_payments_provider_created_at_id": ["provider", "created_at", "id"],
    "ix_payments_provider_payment_id": ["provider_payment_id"],
}


def upgrade() -> None:
    op.create_table(
        CONFIGS,
        sa.Column("method_id", sa.String(50), primary_key=True),
        sa.Column("sort_order", sa.Integer, nullable=False),
        sa.Column("is_enabled", sa.Boolean, nullable=False),
        sa.Column("display_name", sa.String(255), nullable=True),
        sa.Column("description", sa.Text, nullable=True),
        sa.Column("sub_options", sa.JSON, nullable=True),
        sa.Column("quick_amounts", sa.JSON, nullable=True),
        sa.Column("min_amount_kopeks", sa.BigInteger, nullable=True),
        sa.Column("max_amount_kopeks", sa.BigInteger, nullable=True),
        sa.Column("user_type_filter", sa.String(20), nullable=False),
        sa.Column("first_topup_filter", sa.String(10), nullable=False),
        sa.Column("promo_group_filter_mode", sa.String(10), nullable=False),
        sa.Column("open_url_direct", sa.Boolean, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        LINKS,
        sa.Column(
            "method_id",
            sa.String(50),
            sa.ForeignKey(f"{CONFIGS}.method_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "promo_group_id",
            sa.Integer,
            sa.ForeignKey("promo_groups.id", ondelete="CASCADE"),
            primary_key=True,
        ),
    )
    op.create_index(f"ix_{LINKS}_promo_group_id", LINKS, ["promo_group_id"])
    op.drop_index("ix_payments_created_at", table_name="payments")
    for name, columns in ADMIN_INDEXES.items():
        op.create_index(name, "payments", columns)


def downgrade() -> None:
    for name in reversed(ADMIN_INDEXES):
        op.drop_index(name, table_name="payments")
    op.create_index("ix_payments_created_at", "payments", ["created_at"])
    op.drop_index(f"ix_{LINKS}_promo_group_id", table_name=LINKS)
    op.drop_table(LINKS)
    op.drop_table(CONFIGS)
