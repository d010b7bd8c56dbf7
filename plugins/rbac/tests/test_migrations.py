"""The `rbac` branch's unique assignment, keys and audit indexes;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database


def test_the_branch_makes_its_keys_and_indexes(tmp_path: Path):
    with migrated_database(tmp_path, "rbac") as db:
        assert db.unique_constraints("user_roles") == [["user_id", "role_id"]]
        assert db.foreign_keys("user_roles") == [("admin_roles", "CASCADE"), ("users", "CASCADE")]
        assert set(db.indexes("admin_audit_log")) == {
            "ix_admin_audit_log_created_at",
            "ix_admin_audit_log_user_id_created_at",
            "ix_admin_audit_log_status_created_at",
        }
