"""promocodes: promo codes, their uses and the discounts they granted"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "promocodes_0001"
down_revision = None
branch_labels = ("promocodes",)
depends_on = ("users_0001", "promo_groups_0001")


def upgrade() -> None:
    op.create_table(
        "promocodes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("code", sa.String(50), nullable=False, unique=True),
        sa.Column("type", sa.String(30), nullable=False),
        sa.Column("balance_bonus_kopeks", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("subscription_days", sa.Integer, nullable=False),
        sa.Column("traffic_gb", sa.Integer, nullable=False),
        sa.Column("max_uses", sa.Integer, nullable=False),
        sa.Column("current_uses", sa.Integer, nullable=False),
        sa.Column("valid_from", UTCDateTime, nullable=False),
        sa.Column("valid_until", UTCDateTime, nullable=True),
        sa.Column("is_active", sa.Boolean, nullable=False),
        sa.Column("first_purchase_only", sa.Boolean, nullable=False),
        sa.Column(
            "promo_group_id", sa.Integer, sa.ForeignKey("promo_groups.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.CheckConstraint("current_uses >= 0 AND current_uses <= max_uses", name="ck_promocodes_uses"),
    )
    op.create_index("ix_promocodes_created_at_id", "promocodes", ["created_at", "id"])
    op.create_index("ix_promocodes_is_active_created_at_id", "promocodes", ["is_active", "created_at", "id"])
    op.create_table(
        "promocode_uses",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "promocode_id", sa.Integer, sa.ForeignKey("promocodes.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("used_at", UTCDateTime, nullable=False),
        sa.Column(
            "previous_promo_group_id",
            sa.Integer,
            sa.ForeignKey("promo_groups.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.UniqueConstraint("promocode_id", "user_id", name="uq_promocode_uses_promocode_id_user_id"),
    )
    op.create_index("ix_promocode_uses_promocode_id_used_at", "promocode_uses", ["promocode_id", "used_at"])
    op.create_index("ix_promocode_uses_user_id_used_at", "promocode_uses", ["user_id", "used_at"])
    op.create_table(
        "promocode_discounts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, unique=True
        ),
        sa.Column(
            "promocode_id", sa.Integer, sa.ForeignKey("promocodes.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("code", sa.String(50), nullable=False),
        sa.Column("percent", sa.Integer, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_promocode_discounts_promocode_id", "promocode_discounts", ["promocode_id"])


def downgrade() -> None:
    op.drop_index("ix_promocode_discounts_promocode_id", table_name="promocode_discounts")
    op.drop_table("promocode_discounts")
    op.drop_index("ix_promocode_uses_user_id_used_at", table_name="promocode_uses")
    op.drop_index("ix_promocode_uses_promocode_id_used_at", table_name="promocode_uses")
    op.drop_table("promocode_uses")
    op.drop_index("ix_promocodes_is_active_created_at_id", table_name="promocodes")
    op.drop_index("ix_promocodes_created_at_id", table_name="promocodes")
    op.drop_table("promocodes")
