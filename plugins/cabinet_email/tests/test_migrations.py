"""The `cabinet_email` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_cabinet_auth import plugin as cabinet_auth_plugin
from subsvc_cabinet_email import plugin
from subsvc_promo_groups import plugin as promo_groups_plugin
from subsvc_users import plugin as users_plugin

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLE = "cabinet_email_tokens"


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    plugins = (promo_groups_plugin, users_plugin, cabinet_auth_plugin, plugin)
    dirs = [p.register_migrations() for p in plugins]
    for p in plugins:
        p.register_models()

    migrate.upgrade(async_url, dirs)
    assert "cabinet_email_0001" in migrate.heads(async_url, dirs)
    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            indexes = {ix["name"]: ix["column_names"] for ix in inspector.get_indexes(TABLE)}
            assert indexes["ix_cabinet_email_tokens_user_id_purpose"] == ["user_id", "purpose"]
            assert indexes["ix_cabinet_email_tokens_email_purpose"] == ["email", "purpose"]
            assert indexes["ix_cabinet_email_tokens_expires_at"] == ["expires_at"]
            (foreign_key,) = inspector.get_foreign_keys(TABLE)
            assert (foreign_key["referred_table"], foreign_key["options"].get("ondelete")) == (
                "users",
                "CASCADE",
            )
            diffs = schema_differences(connection, {TABLE})
        assert diffs == []

        migrate.downgrade(async_url, dirs, "cabinet_email@base")
        with engine.connect() as connection:
            remaining = set(sa.inspect(connection).get_table_names())
        assert TABLE not in remaining
        assert "users" in remaining
    finally:
        engine.dispose()
