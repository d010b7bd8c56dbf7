"""The `webhooks` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLES = {"webhooks", "webhook_deliveries"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "webhooks") as db:
        assert db.indexes("webhook_deliveries") == {
            "ix_webhook_deliveries_webhook_id_id": ["webhook_id", "id"],
            "ix_webhook_deliveries_status_next_retry_at": ["status", "next_retry_at"],
        }
        assert db.foreign_keys("webhook_deliveries") == [("webhooks", "CASCADE")]
        db.round_trip("webhooks", head="webhooks_0001", tables=TABLES)
