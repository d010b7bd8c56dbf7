"""The `cabinet_oauth` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_cabinet_auth import plugin as cabinet_auth_plugin
from subsvc_cabinet_oauth import plugin
from subsvc_promo_groups import plugin as promo_groups_plugin
from subsvc_users import plugin as users_plugin

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {"oauth_identities", "oauth_states", "oauth_merge_tokens"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    plugins = (promo_groups_plugin, users_plugin, cabinet_auth_plugin, plugin)
    dirs = [p.register_migrations() for p in plugins]
    for p in plugins:
        p.register_models()

    migrate.upgrade(async_url, dirs)
    assert "cabinet_oauth_0001" in migrate.heads(async_url, dirs)
    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            assert set(inspector.get_table_names()) >= TABLES
            uniques = {tuple(u["column_names"]) for u in inspector.get_unique_constraints("oauth_identities")}
            assert uniques == {("provider", "subject"), ("user_id", "provider")}
            for table in TABLES:
                for foreign_key in inspector.get_foreign_keys(table):
                    assert foreign_key["referred_table"] == "users"
                    assert foreign_key["options"].get("ondelete") == "CASCADE"
            diffs = schema_differences(connection, TABLES)
        assert diffs == []

        migrate.downgrade(async_url, dirs, "cabinet_oauth@base")
        with engine.connect() as connection:
            remaining = set(sa.inspect(connection).get_table_names())
        assert not TABLES & remaining
        assert {"users", "cabinet_refresh_tokens"} <= remaining
    finally:
        engine.dispose()
