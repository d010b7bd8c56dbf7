"""The `tariffs` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLES = {"tariffs", "tariff_promo_groups"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
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
        db.round_trip(
            "tariffs",
            head="tariffs_0001",
            tables=TABLES,
            kept={"subscriptions", "server_squads", "promo_groups"},  # the branches it builds on stay
        )
        assert "ix_subscriptions_tariff_id" not in db.indexes("subscriptions")
