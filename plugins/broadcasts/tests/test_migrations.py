"""The `broadcasts` branch: it upgrades, matches the models, and downgrades cleanly."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_broadcasts import plugin as broadcasts
from subsvc_promo_groups import plugin as promo_groups
from subsvc_users import plugin as users

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {"broadcasts", "broadcast_recipients"}


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
    dirs = [module.register_migrations() for module in (promo_groups, users, broadcasts)]
    broadcasts.register_models()
    migrate.upgrade(async_url, dirs)
    assert _tables(sync_url) >= TABLES
    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            assert schema_differences(connection, TABLES) == []
    finally:
        engine.dispose()
    migrate.downgrade(async_url, dirs, "broadcasts@base")
    remaining = _tables(sync_url)
    assert not TABLES & remaining and "users" in remaining
