"""broadcasts: a broadcast's ``category`` (system, news, promo) and its ``custom_buttons``
(4.1.0), sent under each message after the chosen standard buttons"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "broadcasts_0002"
down_revision = "broadcasts_0001"


def upgrade() -> None:
    with op.batch_alter_table("broadcasts") as batch:
        batch.add_column(sa.Column("category", sa.String(20), nullable=False, server_default="system"))
        batch.add_column(sa.Column("custom_buttons", sa.JSON, nullable=False, server_default=sa.text("'[]'")))


def downgrade() -> None:
    with op.batch_alter_table("broadcasts") as batch:
        batch.drop_column("custom_buttons")
        batch.drop_column("category")
