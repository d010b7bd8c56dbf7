"""subscriptions: daily state, the autopay period, one held subscription per (user, tariff)

Adds ``is_daily_paused``, ``last_daily_charge_at`` and ``autopay_period_days``; the partial
unique index ``uq_subscriptions_user_tariff_live`` (a user holds a tariff once while the
subscription is active, trial or limited; no code set ``tariff_id`` before, so existing rows
pass) and the partial indexes the autopay and daily-charge jobs read.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "subscriptions_0002"
down_revision = "subscriptions_0001"

HELD = "tariff_id IS NOT NULL AND status IN ('active', 'trial', 'limited')"
DAILY = "last_daily_charge_at IS NOT NULL"


def _partial(condition: str) -> dict[str, sa.TextClause]:
    return {"postgresql_where": sa.text(condition), "sqlite_where": sa.text(condition)}


def upgrade() -> None:
    with op.batch_alter_table("subscriptions") as batch:
        batch.add_column(sa.Column("autopay_period_days", sa.Integer, nullable=True))
        batch.add_column(sa.Column("is_daily_paused", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("last_daily_charge_at", UTCDateTime(), nullable=True))
    op.create_index(
        "uq_subscriptions_user_tariff_live",
        "subscriptions",
        ["user_id", "tariff_id"],
        unique=True,
        **_partial(HELD),
    )
    op.create_index(
        "ix_subscriptions_autopay_due", "subscriptions", ["end_date"], **_partial("autopay_enabled")
    )
    op.create_index(
        "ix_subscriptions_daily_due", "subscriptions", ["last_daily_charge_at"], **_partial(DAILY)
    )


def downgrade() -> None:
    op.drop_index("ix_subscriptions_daily_due", table_name="subscriptions")
    op.drop_index("ix_subscriptions_autopay_due", table_name="subscriptions")
    op.drop_index("uq_subscriptions_user_tariff_live", table_name="subscriptions")
    with op.batch_alter_table("subscriptions") as batch:
        batch.drop_column("last_daily_charge_at")
        batch.drop_column("is_daily_paused")
        batch.drop_column("autopay_period_days")
