"""The `cabinet_admin_users` branch: it upgrades, matches the models, and downgrades cleanly
(own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLE = "user_admin_settings"


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "cabinet_admin_users") as db:
        with db.inspector() as inspector:
            assert inspector.get_pk_constraint(TABLE)["constrained_columns"] == ["user_id"]
        assert db.foreign_keys(TABLE) == [("users", "CASCADE")]
        db.round_trip(
            "cabinet_admin_users",
            head="cabinet_admin_users_0001",
            tables={TABLE},
            kept={"users", "subscriptions", "transactions"},
        )
