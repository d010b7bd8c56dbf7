"""panel_sync: a sync state outlives its subscription (no foreign key), and keeps its short_id

A removed subscription's last change (``disabled``, published just before its row goes) is
queued in ``panel_sync_states`` in the removing transaction, after the row went: with the
``ON DELETE CASCADE`` key that INSERT failed (the removal answered 500), and a change queued
earlier went with the subscription, so the panel user stayed active. ``short_id`` tells such
a row from a new subscription that got the same id.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "panel_sync_0002"
down_revision = "panel_sync_0001"

FOREIGN_KEY = "panel_sync_states_subscription_id_fkey"
# PostgreSQL's name of the unnamed key of panel_sync_0001; SQLite's batch copy is given it too
NAMING = {"fk": "%(table_name)s_%(column_0_name)s_fkey"}


def upgrade() -> None:
    with op.batch_alter_table("panel_sync_states", naming_convention=NAMING) as batch:
        batch.drop_constraint(FOREIGN_KEY, type_="foreignkey")
        batch.add_column(sa.Column("short_id", sa.String(16), nullable=True))
    op.execute(
        "UPDATE panel_sync_states SET short_id = "
        "(SELECT s.short_id FROM subscriptions s WHERE s.id = panel_sync_states.subscription_id)"
    )


def downgrade() -> None:
    # the key cannot hold rows of removed subscriptions: their pending changes are dropped
    op.execute(
        "DELETE FROM panel_sync_states WHERE NOT EXISTS "
        "(SELECT 1 FROM subscriptions s WHERE s.id = panel_sync_states.subscription_id)"
    )
    with op.batch_alter_table("panel_sync_states", naming_convention=NAMING) as batch:
        batch.drop_column("short_id")
        batch.create_foreign_key(
            FOREIGN_KEY, "subscriptions", ["subscription_id"], ["id"], ondelete="CASCADE"
        )
