"""The `notifications` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_billing import plugin as billing_plugin
from subsvc_notifications import plugin
from subsvc_promo_groups import plugin as promo_groups_plugin
from subsvc_subscriptions import plugin as subscriptions_plugin
from subsvc_users import plugin as users_plugin

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLE = "subscription_events"


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    plugins = (promo_groups_plugin, users_plugin, billing_plugin, subscriptions_plugin, plugin)
    dirs = [p.register_migrations() for p in plugins]
    for p in plugins:
        p.register_models()

    migrate.upgrade(async_url, dirs)
    assert "notifications_0001" in migrate.heads(async_url, dirs)
    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            assert TABLE in inspector.get_table_names()
            indexes = {ix["name"]: ix["column_names"] for ix in inspector.get_indexes(TABLE)}
            assert indexes == {
                "ix_subscription_events_occurred_at_id": ["occurred_at", "id"],
                "ix_subscription_events_user_id_occurred_at": ["user_id", "occurred_at"],
                "ix_subscription_events_event_type_occurred_at": ["event_type", "occurred_at"],
                "ix_subscription_events_subscription_id": ["subscription_id"],
                "ix_subscription_events_transaction_id": ["transaction_id"],
            }
            foreign_keys = {
                fk["referred_table"]: fk["options"].get("ondelete")
                for fk in inspector.get_foreign_keys(TABLE)
            }
            assert foreign_keys == {
                "users": "CASCADE",
                "subscriptions": "SET NULL",
                "transactions": "SET NULL",
            }
            diffs = schema_differences(connection, {TABLE})
        assert diffs == []

        migrate.downgrade(async_url, dirs, "notifications@base")
        with engine.connect() as connection:
            remaining = set(sa.inspect(connection).get_table_names())
        assert TABLE not in remaining
        assert {"users", "subscriptions", "transactions"} <= remaining  # the branches it builds on stay
    finally:
        engine.dispose()
