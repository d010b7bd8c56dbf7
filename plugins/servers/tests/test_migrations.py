"""The `servers` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLES = {"server_squads", "server_squad_promo_groups"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "servers") as db:
        assert db.unique_constraints("server_squads") == [["squad_uuid"]]
        assert db.foreign_keys("server_squad_promo_groups") == [
            ("promo_groups", "CASCADE"),
            ("server_squads", "CASCADE"),
        ]
        db.round_trip(
            "servers", head="servers_0001", tables=TABLES, kept={"users", "promo_groups", "subscriptions"}
        )
