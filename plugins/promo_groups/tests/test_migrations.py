"""The `promo_groups` branch's single-default index;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from subsvc.testing_migrations import migrated_database


def test_at_most_one_group_is_the_default(tmp_path: Path):
    with migrated_database(tmp_path, "promo_groups") as db, db.connect() as connection:
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
