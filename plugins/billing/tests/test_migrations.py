"""The `billing` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLE = "transactions"


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "promo_groups", "users", "billing") as db:
        assert db.indexes(TABLE) == {
            "ix_transactions_user_id_created_at": ["user_id", "created_at"],
            "ix_transactions_type_created_at": ["type", "created_at"],
            "ix_transactions_created_at": ["created_at"],
        }
        assert db.unique_constraints(TABLE) == [["payment_method", "external_id"]]
        assert db.foreign_keys(TABLE) == [("users", "CASCADE")]
        db.round_trip("billing", head="billing_0001", tables={TABLE}, kept={"users", "promo_groups"})
