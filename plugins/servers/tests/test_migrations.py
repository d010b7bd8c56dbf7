"""The `servers` branch's unique squad and foreign keys;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database


def test_the_branch_makes_its_unique_squad_and_keys(tmp_path: Path):
    with migrated_database(tmp_path, "servers") as db:
        assert db.unique_constraints("server_squads") == [["squad_uuid"]]
        assert db.foreign_keys("server_squad_promo_groups") == [
            ("promo_groups", "CASCADE"),
            ("server_squads", "CASCADE"),
        ]
