"""The `servers` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_promo_groups import plugin as promo_groups_plugin
from subsvc_servers import plugin
from subsvc_subscriptions import plugin as subscriptions_plugin
from subsvc_users import plugin as users_plugin

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {"server_squads", "server_squad_promo_groups"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    plugins = (promo_groups_plugin, users_plugin, subscriptions_plugin, plugin)
    dirs = [p.register_migrations() for p in plugins]
    for p in plugins:
        p.register_models()

    migrate.upgrade(async_url, dirs)
    assert "servers_0001" in migrate.heads(async_url, dirs)
    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            assert set(inspector.get_table_names()) >= TABLES
            (unique,) = inspector.get_unique_constraints("server_squads")
            assert unique["column_names"] == ["squad_uuid"]
            keys = {
                fk["referred_table"]: fk["options"].get("ondelete")
                for fk in inspector.get_foreign_keys("server_squad_promo_groups")
            }
            assert keys == {"server_squads": "CASCADE", "promo_groups": "CASCADE"}
            diffs = schema_differences(connection, TABLES)
        assert diffs == []

        migrate.downgrade(async_url, dirs, "servers@base")
        with engine.connect() as connection:
            remaining = set(sa.inspect(connection).get_table_names())
        assert not TABLES & remaining
        assert {"users", "promo_groups", "subscriptions"} <= remaining
    finally:
        engine.dispose()
