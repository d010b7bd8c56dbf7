"""The `webhooks` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_webhooks import plugin

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {"webhooks", "webhook_deliveries"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    dirs = [plugin.register_migrations()]
    plugin.register_models()

    migrate.upgrade(async_url, dirs)
    assert "webhooks_0001" in migrate.heads(async_url, dirs)
    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            assert set(inspector.get_table_names()) >= TABLES
            indexes = {ix["name"]: ix["column_names"] for ix in inspector.get_indexes("webhook_deliveries")}
            assert indexes == {
                "ix_webhook_deliveries_webhook_id_id": ["webhook_id", "id"],
                "ix_webhook_deliveries_status_next_retry_at": ["status", "next_retry_at"],
            }
            (foreign_key,) = inspector.get_foreign_keys("webhook_deliveries")
            assert (foreign_key["referred_table"], foreign_key["options"].get("ondelete")) == (
                "webhooks",
                "CASCADE",
            )
            diffs = schema_differences(connection, TABLES)
        assert diffs == []

        migrate.downgrade(async_url, dirs, "webhooks@base")
        with engine.connect() as connection:
            assert not TABLES & set(sa.inspect(connection).get_table_names())
    finally:
        engine.dispose()
