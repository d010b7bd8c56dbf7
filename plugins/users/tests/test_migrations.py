"""The `users` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_promo_groups import plugin as promo_groups_plugin
from subsvc_users import plugin

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {"users"}


def _inspect(url: str):
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            tables = set(inspector.get_table_names())
            indexes = {i["name"] for i in inspector.get_indexes("users")} if "users" in tables else set()
            return tables, indexes
    finally:
        engine.dispose()


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    dirs = [promo_groups_plugin.register_migrations(), plugin.register_migrations()]
    plugin.register_models()

    migrate.upgrade(async_url, dirs)
    tables, indexes = _inspect(sync_url)
    assert tables >= TABLES | {"promo_groups"}
    assert {
        "ix_users_created_at_id",
        "ix_users_status_created_at_id",
        "ix_users_promo_group_created_at_id",
    } <= indexes
    assert "users_0003" in migrate.heads(async_url, dirs)

    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            diffs = schema_differences(connection, TABLES)
    finally:
        engine.dispose()
    assert diffs == []

    migrate.downgrade(async_url, dirs, "users@base")
    tables, _ = _inspect(sync_url)
    assert "users" not in tables
    assert "promo_groups" in tables  # the branch it depends on is left alone
