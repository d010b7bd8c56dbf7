"""The `cabinet_oauth` branch's unique identities and foreign keys;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLES = {"oauth_identities", "oauth_states", "oauth_merge_tokens"}


def test_identities_are_unique_and_go_with_their_user(tmp_path: Path):
    with migrated_database(tmp_path, "cabinet_oauth") as db:
        uniques = {tuple(columns) for columns in db.unique_constraints("oauth_identities")}
        assert uniques == {("provider", "subject"), ("user_id", "provider")}
        for table in TABLES:
            for referred_table, ondelete in db.foreign_keys(table):
                assert referred_table == "users"
                assert ondelete == "CASCADE"
