"""The `promo_groups` branch: it upgrades, matches the model (with the single-default index),
and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from subsvc.testing_migrations import migrated_database

TABLES = {"promo_groups"}


def test_upgrade_matches_model_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "promo_groups") as db:
        assert db.heads() == db.core_heads() | {"promo_groups_0001"}
        with db.connect() as connection:
            # at most one default group, whatever the application does
            insert = sa.text(
                "INSERT INTO promo_groups (name, is_default, created_at, updated_at) "
                "VALUES (:name, :is_default, '2026-01-01', '2026-01-01')"
            )
            connection.execute(insert, {"name": "a", "is_default": True})
            connection.execute(insert, {"name": "b", "is_default": False})
            connection.execute(insert, {"name": "c", "is_default": False})
            with pytest.raises(sa.exc.IntegrityError):
                connection.execute(insert, {"name": "d", "is_default": True})
            connection.rollback()
        db.round_trip("promo_groups", head="promo_groups_0001", tables=TABLES, kept={"web_api_tokens"})
