"""The `users` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLES = {"users"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "users") as db:
        assert {
            "ix_users_created_at_id",
            "ix_users_status_created_at_id",
            "ix_users_promo_group_created_at_id",
        } <= set(db.indexes("users"))
        db.round_trip("users", head="users_0003", tables=TABLES, kept={"promo_groups"})
