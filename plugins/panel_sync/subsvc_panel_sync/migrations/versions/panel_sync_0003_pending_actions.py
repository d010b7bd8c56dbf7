"""panel_sync: actions the panel performs after a subscription's next push (pending_actions)

A change may ask the panel for more than the subscription's fields: reset the used traffic
(bit 1), forget the devices (bit 2). The bits are OR-ed into the subscription's row with the
change, performed after the push and cleared once done.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "panel_sync_0003"
down_revision = "panel_sync_0002"


def upgrade() -> None:
    with op.batch_alter_table("panel_sync_states") as batch:
        batch.add_column(sa.Column("pending_actions", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("panel_sync_states") as batch:
        batch.drop_column("pending_actions")
