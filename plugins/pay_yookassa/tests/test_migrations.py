"""The saved cards' table: one row per YooKassa payment method, a user's cards found by index
(the branch's round trip is the generic test's, tests/test_plugin_migrations.py)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database


def test_one_card_per_payment_method_and_a_users_cards_indexed(tmp_path: Path):
    with migrated_database(tmp_path, "pay_yookassa") as db:
        assert db.unique_constraints("yookassa_saved_cards") == [["payment_method_id"]]
        assert "ix_yookassa_saved_cards_user_id_is_active" in db.indexes("yookassa_saved_cards")
