"""servers: the server table, its promo-group restrictions, and (PostgreSQL) a GIN index on
the subscriptions' connected squads for the connected-users queries
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "servers_0001"
down_revision = None
branch_labels = ("servers",)
depends_on = ("promo_groups_0001", "subscriptions_0001")

SQUADS_INDEX = "ix_subscriptions_connected_squads_gin"


def upgrade() -> None:
    op.create_table(
        "server_squads",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("squad_uuid", sa.String(255), nullable=False, unique=True),
        sa.Column("display_name", sa.String(255), nullable=False),
        sa.Column("original_name", sa.String(255), nullable=True),
        sa.Column("country_code", sa.String(5), nullable=True),
        sa.Column("is_available", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("is_trial_eligible", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("price_kopeks", sa.Integer, nullable=False, server_default="0"),
        sa.Column("description", sa.Text, nullable=True),
        sa.Column("sort_order", sa.Integer, nullable=False, server_default="0"),
        sa.Column("max_users", sa.Integer, nullable=True),
        sa.Column("current_users", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_server_squads_sort_order_id", "server_squads", ["sort_order", "id"])
    op.create_table(
        "server_squad_promo_groups",
        sa.Column(
            "server_squad_id",
            sa.Integer,
            sa.ForeignKey("server_squads.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "promo_group_id",
            sa.Integer,
            sa.ForeignKey("promo_groups.id", ondelete="CASCADE"),
            primary_key=True,
        ),
    )
    op.create_index(
        "ix_server_squad_promo_groups_promo_group_id", "server_squad_promo_groups", ["promo_group_id"]
    )
    if op.get_bind().dialect.name == "postgresql":
        # `connected_squads @> [uuid]` (connected users, counts) without reading every subscription.
        op.execute(
            f"CREATE INDEX {SQUADS_INDEX} ON subscriptions "
            "USING gin ((connected_squads::jsonb) jsonb_path_ops)"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP INDEX IF EXISTS {SQUADS_INDEX}")
    op.drop_index("ix_server_squad_promo_groups_promo_group_id", table_name="server_squad_promo_groups")
    op.drop_table("server_squad_promo_groups")
    op.drop_index("ix_server_squads_sort_order_id", table_name="server_squads")
    op.drop_table("server_squads")
