"""The `rbac` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLES = {"admin_roles", "user_roles", "access_policies", "admin_audit_log"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "rbac") as db:
        assert db.unique_constraints("user_roles") == [["user_id", "role_id"]]
        assert db.foreign_keys("user_roles") == [("admin_roles", "CASCADE"), ("users", "CASCADE")]
        assert set(db.indexes("admin_audit_log")) == {
            "ix_admin_audit_log_created_at",
            "ix_admin_audit_log_user_id_created_at",
            "ix_admin_audit_log_status_created_at",
        }
        db.round_trip("rbac", head="rbac_0001", tables=TABLES, kept={"users", "promo_groups"})
