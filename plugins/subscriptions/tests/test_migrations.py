"""The `subscriptions` branch: it upgrades, matches the models, and downgrades cleanly."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLES = {"subscriptions", "traffic_purchases"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "promo_groups", "users", "subscriptions") as db:
        assert "users" in db.tables()
        db.round_trip("subscriptions", head="subscriptions_0001", tables=TABLES, kept={"users"})
