"""The `billing` branch's indexes and keys;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLE = "transactions"


def test_the_branch_makes_its_indexes_and_keys(tmp_path: Path):
    with migrated_database(tmp_path, "promo_groups", "users", "billing") as db:
        assert db.indexes(TABLE) == {
            "ix_transactions_user_id_created_at": ["user_id", "created_at"],
            "ix_transactions_type_created_at": ["type", "created_at"],
            "ix_transactions_created_at": ["created_at"],
        }
        assert db.unique_constraints(TABLE) == [["payment_method", "external_id"]]
        assert db.foreign_keys(TABLE) == [("users", "CASCADE")]
