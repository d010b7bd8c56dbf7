"""promo_groups: the promo group table (at most one default group)"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "promo_groups_0001"
down_revision = None
branch_labels = ("promo_groups",)
depends_on = "core_0001"


def upgrade() -> None:
    op.create_table(
        "promo_groups",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(255), nullable=False, unique=True),
        sa.Column("priority", sa.Integer, nullable=False, server_default="0"),
        sa.Column("server_discount_percent", sa.Integer, nullable=False, server_default="0"),
        sa.Column("traffic_discount_percent", sa.Integer, nullable=False, server_default="0"),
        sa.Column("device_discount_percent", sa.Integer, nullable=False, server_default="0"),
        sa.Column("period_discounts", sa.JSON, nullable=False, server_default=sa.text("'{}'")),
        sa.Column("auto_assign_total_spent_kopeks", sa.BigInteger, nullable=True),
        sa.Column("apply_discounts_to_addons", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("is_default", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_index(
        "uq_promo_groups_single_default",
        "promo_groups",
        ["is_default"],
        unique=True,
        postgresql_where=sa.text("is_default"),
        sqlite_where=sa.text("is_default"),
    )


def downgrade() -> None:
    op.drop_index("uq_promo_groups_single_default", table_name="promo_groups")
    op.drop_table("promo_groups")
