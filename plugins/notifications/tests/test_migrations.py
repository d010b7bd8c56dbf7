"""The `notifications` branch's indexes and foreign keys;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLE = "subscription_events"


def test_the_branch_makes_its_indexes_and_keys(tmp_path: Path):
    with migrated_database(tmp_path, "notifications") as db:
        assert db.indexes(TABLE) == {
            "ix_subscription_events_occurred_at_id": ["occurred_at", "id"],
            "ix_subscription_events_user_id_occurred_at": ["user_id", "occurred_at"],
            "ix_subscription_events_event_type_occurred_at": ["event_type", "occurred_at"],
            "ix_subscription_events_subscription_id": ["subscription_id"],
            "ix_subscription_events_transaction_id": ["transaction_id"],
        }
        assert db.foreign_keys(TABLE) == [
            ("subscriptions", "SET NULL"),
            ("transactions", "SET NULL"),
            ("users", "CASCADE"),
        ]
