"""The `promo_groups` branch: it upgrades, matches the model (with the single-default index),
and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from subsvc_promo_groups import plugin

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {"promo_groups"}


def _tables(url: str) -> set[str]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            return set(sa.inspect(connection).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_matches_model_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    dirs = [plugin.register_migrations()]
    plugin.register_models()

    migrate.upgrade(async_url, dirs)
    assert _tables(sync_url) >= TABLES
    assert set(migrate.heads(async_url, dirs)) == {*migrate.heads(async_url, []), "promo_groups_0001"}

    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            diffs = schema_differences(connection, TABLES)
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
    finally:
        engine.dispose()
    assert diffs == []

    migrate.downgrade(async_url, dirs, "promo_groups@base")
    remaining = _tables(sync_url)
    assert not TABLES & remaining
    assert "web_api_tokens" in remaining  # core's branch is left alone
