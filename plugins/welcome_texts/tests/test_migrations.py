"""The `welcome_texts` branch: it upgrades, matches the models, and downgrades cleanly."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from subsvc.db import migrate
from subsvc.plugins import from_modules
from subsvc.testing import schema_differences

TABLES = {"welcome_texts"}


def _tables(url: str) -> set[str]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            return set(sa.inspect(connection).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    plugin = from_modules(["welcome_texts"])["welcome_texts"]
    assert plugin.migrations is not None
    dirs = [plugin.migrations]
    plugin.module.register_models()
    migrate.upgrade(async_url, dirs)
    assert _tables(sync_url) >= TABLES
    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            assert schema_differences(connection, TABLES) == []
    finally:
        engine.dispose()
    migrate.downgrade(async_url, dirs, "welcome_texts@base")
    assert not TABLES & _tables(sync_url)
