"""The `broadcasts` branch: it upgrades, matches the models, and downgrades cleanly."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLES = {"broadcasts", "broadcast_recipients"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "broadcasts") as db:
        db.round_trip("broadcasts", head="broadcasts_0001", tables=TABLES, kept={"users"})
