"""The `tariffs` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_promo_groups import plugin as promo_groups_plugin
from subsvc_servers import plugin as servers_plugin
from subsvc_subscriptions import plugin as subscriptions_plugin
from subsvc_tariffs import plugin
from subsvc_users import plugin as users_plugin

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {"tariffs", "tariff_promo_groups"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    plugins = (promo_groups_plugin, users_plugin, subscriptions_plugin, servers_plugin, plugin)
    dirs = [p.register_migrations() for p in plugins]
    for p in plugins:
        p.register_models()

    migrate.upgrade(async_url, dirs)
    assert "tariffs_0001" in migrate.heads(async_url, dirs)
    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            assert set(inspector.get_table_names()) >= TABLES
            indexes = {
                ix["name"]: (ix["column_names"], bool(ix["unique"]))
                for ix in inspector.get_indexes("tariffs")
            }
            assert indexes == {
                "ix_tariffs_display_order_id": (["display_order", "id"], False),
                "uq_tariffs_single_trial": (["is_trial_available"], True),
            }
            keys = {
                fk["referred_table"]: fk["options"].get("ondelete")
                for fk in inspector.get_foreign_keys("tariff_promo_groups")
            }
            assert keys == {"tariffs": "CASCADE", "promo_groups": "RESTRICT"}
            subscription_indexes = {
                ix["name"]: ix["column_names"] for ix in inspector.get_indexes("subscriptions")
            }
            assert subscription_indexes["ix_subscriptions_tariff_id"] == ["tariff_id"]
            diffs = schema_differences(connection, TABLES)
        assert diffs == []

        migrate.downgrade(async_url, dirs, "tariffs@base")
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            remaining = set(inspector.get_table_names())
            subscription_indexes = {ix["name"] for ix in inspector.get_indexes("subscriptions")}
        assert not TABLES & remaining
        assert "ix_subscriptions_tariff_id" not in subscription_indexes
        assert {
            "subscriptions",
            "server_squads",
            "promo_groups",
        } <= remaining  # the branches it builds on stay
    finally:
        engine.dispose()
