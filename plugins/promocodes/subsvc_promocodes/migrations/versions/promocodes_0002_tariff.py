"""promocodes: a code may be bound to a tariff (``tariff_id``, 4.1.0); a deleted tariff unbinds it"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "promocodes_0002"
down_revision = "promocodes_0001"
depends_on = ("tariffs_0001",)

FOREIGN_KEY = "promocodes_tariff_id_fkey"


def upgrade() -> None:
    with op.batch_alter_table("promocodes") as batch:
        batch.add_column(sa.Column("tariff_id", sa.Integer, nullable=True))
        batch.create_foreign_key(FOREIGN_KEY, "tariffs", ["tariff_id"], ["id"], ondelete="SET NULL")


def downgrade() -> None:
    with op.batch_alter_table("promocodes") as batch:
        batch.drop_constraint(FOREIGN_KEY, type_="foreignkey")
        batch.drop_column("tariff_id")
