"""The `cabinet_oauth` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLES = {"oauth_identities", "oauth_states", "oauth_merge_tokens"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "cabinet_oauth") as db:
        uniques = {tuple(columns) for columns in db.unique_constraints("oauth_identities")}
        assert uniques == {("provider", "subject"), ("user_id", "provider")}
        for table in TABLES:
            for referred_table, ondelete in db.foreign_keys(table):
                assert referred_table == "users"
                assert ondelete == "CASCADE"
        db.round_trip(
            "cabinet_oauth",
            head="cabinet_oauth_0001",
            tables=TABLES,
            kept={"users", "cabinet_refresh_tokens"},
        )
