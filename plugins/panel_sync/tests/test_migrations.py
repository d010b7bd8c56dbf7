"""The `panel_sync` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_panel_sync import plugin as panel_sync
from subsvc_promo_groups import plugin as promo_groups
from subsvc_subscriptions import plugin as subscriptions
from subsvc_users import plugin as users

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {"panel_sync_states", "panel_sync_runs", "panel_sync_control"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    modules = (promo_groups, users, subscriptions, panel_sync)
    dirs = [module.register_migrations() for module in modules]
    for module in modules:
        module.register_models()

    migrate.upgrade(async_url, dirs)
    assert "panel_sync_0001" in migrate.heads(async_url, dirs)
    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            assert set(inspector.get_table_names()) >= TABLES
            indexes = {ix["name"]: ix["column_names"] for ix in inspector.get_indexes("panel_sync_states")}
            assert indexes == {
                "ix_panel_sync_states_due": ["status", "next_attempt_at"],
                "ix_panel_sync_states_user_id": ["user_id"],
            }
            (foreign_key,) = inspector.get_foreign_keys("panel_sync_states")
            assert (foreign_key["referred_table"], foreign_key["options"].get("ondelete")) == (
                "subscriptions",
                "CASCADE",
            )
            assert schema_differences(connection, TABLES) == []

        migrate.downgrade(async_url, dirs, "panel_sync@base")
        with engine.connect() as connection:
            assert not TABLES & set(sa.inspect(connection).get_table_names())
            assert "subscriptions" in sa.inspect(connection).get_table_names()
    finally:
        engine.dispose()
