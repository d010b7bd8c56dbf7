"""The `notifications` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLE = "subscription_events"


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
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
        db.round_trip(
            "notifications",
            head="notifications_0001",
            tables={TABLE},
            kept={"users", "subscriptions", "transactions"},
        )
