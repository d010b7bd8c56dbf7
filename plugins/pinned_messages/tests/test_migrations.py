"""The `pinned_messages` branch: it upgrades, matches the models, and downgrades cleanly (own
SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLES = {"pinned_messages", "pinned_message_runs", "pinned_message_deliveries"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "pinned_messages") as db:
        with db.inspector() as inspector:
            indexes = {i["name"]: i for i in inspector.get_indexes("pinned_messages")}
        assert indexes["uq_pinned_messages_active"]["unique"]
        db.round_trip("pinned_messages", head="pinned_messages_0001", tables=TABLES, kept={"users"})
