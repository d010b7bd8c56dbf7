"""The `cabinet_admin_users` branch's key and foreign key;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLE = "user_admin_settings"


def test_the_table_is_keyed_by_its_user(tmp_path: Path):
    with migrated_database(tmp_path, "cabinet_admin_users") as db:
        with db.inspector() as inspector:
            assert inspector.get_pk_constraint(TABLE)["constrained_columns"] == ["user_id"]
        assert db.foreign_keys(TABLE) == [("users", "CASCADE")]
