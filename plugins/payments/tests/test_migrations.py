"""The `payments` branch's keys and indexes; the round trip every branch passes is
tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLE = "payments"
LINKS = "payment_method_promo_groups"


def test_the_branch_makes_its_keys_and_indexes(tmp_path: Path):
    with migrated_database(tmp_path, "promo_groups", "users", "billing", "payments") as db:
        assert sorted(db.unique_constraints(TABLE)) == [
            ["provider", "provider_payment_id"],
            ["transaction_id"],
            ["user_id", "idempotency_key"],
        ]
        assert db.indexes(TABLE) == {
            "ix_payments_user_id_status_created_at": ["user_id", "status", "created_at"],
            "ix_payments_status_expires_at": ["status", "expires_at"],
            "ix_payments_created_at_id": ["created_at", "id"],
            "ix_payments_status_created_at_id": ["status", "created_at", "id"],
            "ix_payments_provider_created_at_id": ["provider", "created_at", "id"],
            "ix_payments_provider_payment_id": ["provider_payment_id"],
        }
        assert sorted(db.foreign_keys(TABLE)) == [("transactions", "SET NULL"), ("users", "CASCADE")]
        assert sorted(db.foreign_keys(LINKS)) == [
            ("payment_method_configs", "CASCADE"),
            ("promo_groups", "CASCADE"),
        ]
        assert db.indexes(LINKS) == {"ix_payment_method_promo_groups_promo_group_id": ["promo_group_id"]}
