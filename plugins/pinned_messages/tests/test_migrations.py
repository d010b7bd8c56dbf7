"""The `pinned_messages` branch: it upgrades, matches the models, and downgrades cleanly (own
SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_pinned_messages import plugin as pinned
from subsvc_promo_groups import plugin as promo_groups
from subsvc_users import plugin as users

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {"pinned_messages", "pinned_message_runs", "pinned_message_deliveries"}


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
    dirs = [module.register_migrations() for module in (promo_groups, users, pinned)]
    for module in (promo_groups, users, pinned):
        module.register_models()

    migrate.upgrade(async_url, dirs)
    assert _tables(sync_url) >= TABLES
    assert "pinned_messages_0001" in set(migrate.heads(async_url, dirs))

    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            assert schema_differences(connection, TABLES) == []
            indexes = {i["name"]: i for i in sa.inspect(connection).get_indexes("pinned_messages")}
            assert indexes["uq_pinned_messages_active"]["unique"]
    finally:
        engine.dispose()

    migrate.downgrade(async_url, dirs, "pinned_messages@base")
    remaining = _tables(sync_url)
    assert not TABLES & remaining
    assert "users" in remaining  # the branches it depends on are left alone
