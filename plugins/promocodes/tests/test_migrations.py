"""The `promocodes` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_promo_groups import plugin as promo_groups_plugin
from subsvc_promocodes import plugin
from subsvc_users import plugin as users_plugin

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {"promocodes", "promocode_uses", "promocode_discounts"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    plugins = (promo_groups_plugin, users_plugin, plugin)
    dirs = [p.register_migrations() for p in plugins]
    for p in plugins:
        p.register_models()

    migrate.upgrade(async_url, dirs)
    assert "promocodes_0001" in migrate.heads(async_url, dirs)
    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            assert set(inspector.get_table_names()) >= TABLES
            uses = {ix["name"]: ix["column_names"] for ix in inspector.get_indexes("promocode_uses")}
            assert uses == {
                "ix_promocode_uses_promocode_id_used_at": ["promocode_id", "used_at"],
                "ix_promocode_uses_user_id_used_at": ["user_id", "used_at"],
            }
            (unique,) = inspector.get_unique_constraints("promocode_uses")
            assert unique["column_names"] == ["promocode_id", "user_id"]
            foreign = {
                (fk["constrained_columns"][0], fk["referred_table"], fk["options"].get("ondelete"))
                for fk in inspector.get_foreign_keys("promocodes")
            }
            assert foreign == {
                ("promo_group_id", "promo_groups", "SET NULL"),
                ("created_by", "users", "SET NULL"),
            }
            (check,) = inspector.get_check_constraints("promocodes")
            assert check["name"] == "ck_promocodes_uses"
            diffs = schema_differences(connection, TABLES)
        assert diffs == []

        migrate.downgrade(async_url, dirs, "promocodes@base")
        with engine.connect() as connection:
            remaining = set(sa.inspect(connection).get_table_names())
        assert not TABLES & remaining
        assert {"users", "promo_groups"} <= remaining  # the branches it builds on stay
    finally:
        engine.dispose()
