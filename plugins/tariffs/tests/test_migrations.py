"""The `tariffs` branch's indexes and keys, and the index it adds to `subscriptions` and takes
away again; the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database


def test_the_branch_makes_its_indexes_and_keys_and_removes_its_subscriptions_index(tmp_path: Path):
    with migrated_database(tmp_path, "tariffs") as db:
        with db.inspector() as inspector:
            indexes = {
                ix["name"]: (ix["column_names"], bool(ix["unique"]))
                for ix in inspector.get_indexes("tariffs")
            }
        assert indexes == {
            "ix_tariffs_display_order_id": (["display_order", "id"], False),
            "uq_tariffs_single_trial": (["is_trial_available"], True),
        }
        assert db.foreign_keys("tariff_promo_groups") == [
            ("promo_groups", "RESTRICT"),
            ("tariffs", "CASCADE"),
        ]
        assert db.indexes("subscriptions")["ix_subscriptions_tariff_id"] == ["tariff_id"]
        db.downgrade("tariffs")
        assert "ix_subscriptions_tariff_id" not in db.indexes("subscriptions")
