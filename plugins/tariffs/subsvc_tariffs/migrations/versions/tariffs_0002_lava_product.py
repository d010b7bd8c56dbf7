"""tariffs: ``lava_product_id``, the tariff's product in the Lava payment system (4.1.0)"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "tariffs_0002"
down_revision = "tariffs_0001"


def upgrade() -> None:
    with op.batch_alter_table("tariffs") as batch:
        batch.add_column(sa.Column("lava_product_id", sa.String(255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tariffs") as batch:
        batch.drop_column("lava_product_id")
