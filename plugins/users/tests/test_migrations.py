"""The `users` branch's list indexes;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database


def test_the_branch_makes_its_list_indexes(tmp_path: Path):
    with migrated_database(tmp_path, "users") as db:
        assert {
            "ix_users_created_at_id",
            "ix_users_status_created_at_id",
            "ix_users_promo_group_created_at_id",
        } <= set(db.indexes("users"))
