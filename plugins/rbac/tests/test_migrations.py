"""The `rbac` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_promo_groups import plugin as promo_groups_plugin
from subsvc_rbac import plugin
from subsvc_users import plugin as users_plugin

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {"admin_roles", "user_roles", "access_policies", "admin_audit_log"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    plugins = (promo_groups_plugin, users_plugin, plugin)
    dirs = [p.register_migrations() for p in plugins]
    for p in plugins:
        p.register_models()

    migrate.upgrade(async_url, dirs)
    assert "rbac_0001" in migrate.heads(async_url, dirs)
    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            assert set(inspector.get_table_names()) >= TABLES
            (unique,) = inspector.get_unique_constraints("user_roles")
            assert unique["column_names"] == ["user_id", "role_id"]
            keys = {
                (fk["referred_table"], fk["options"].get("ondelete"))
                for fk in inspector.get_foreign_keys("user_roles")
            }
            assert keys == {("users", "CASCADE"), ("admin_roles", "CASCADE")}
            indexes = {ix["name"] for ix in inspector.get_indexes("admin_audit_log")}
            assert indexes == {
                "ix_admin_audit_log_created_at",
                "ix_admin_audit_log_user_id_created_at",
                "ix_admin_audit_log_status_created_at",
            }
            diffs = schema_differences(connection, TABLES)
        assert diffs == []

        migrate.downgrade(async_url, dirs, "rbac@base")
        with engine.connect() as connection:
            remaining = set(sa.inspect(connection).get_table_names())
        assert not TABLES & remaining
        assert {"users", "promo_groups"} <= remaining
    finally:
        engine.dispose()
