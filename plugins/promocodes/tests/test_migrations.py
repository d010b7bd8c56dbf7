"""The `promocodes` branch's indexes, keys and check;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database


def test_the_branch_makes_its_indexes_keys_and_check(tmp_path: Path):
    with migrated_database(tmp_path, "promo_groups", "users", "promocodes") as db:
        assert db.indexes("promocode_uses") == {
            "ix_promocode_uses_promocode_id_used_at": ["promocode_id", "used_at"],
            "ix_promocode_uses_user_id_used_at": ["user_id", "used_at"],
        }
        assert db.unique_constraints("promocode_uses") == [["promocode_id", "user_id"]]
        with db.inspector() as inspector:
            foreign = {
                (fk["constrained_columns"][0], fk["referred_table"], fk["options"].get("ondelete"))
                for fk in inspector.get_foreign_keys("promocodes")
            }
            (check,) = inspector.get_check_constraints("promocodes")
        assert foreign == {
            ("promo_group_id", "promo_groups", "SET NULL"),
            ("created_by", "users", "SET NULL"),
            ("tariff_id", "tariffs", "SET NULL"),
        }
        assert check["name"] == "ck_promocodes_uses"
