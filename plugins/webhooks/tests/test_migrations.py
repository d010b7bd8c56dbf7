"""The `webhooks` branch's delivery indexes and key;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database


def test_the_branch_makes_its_delivery_indexes_and_key(tmp_path: Path):
    with migrated_database(tmp_path, "webhooks") as db:
        assert db.indexes("webhook_deliveries") == {
            "ix_webhook_deliveries_webhook_id_id": ["webhook_id", "id"],
            "ix_webhook_deliveries_status_next_retry_at": ["status", "next_retry_at"],
        }
        assert db.foreign_keys("webhook_deliveries") == [("webhooks", "CASCADE")]
