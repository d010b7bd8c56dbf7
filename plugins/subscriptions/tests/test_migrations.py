"""The `subscriptions` branch: it upgrades, matches the models, and downgrades cleanly."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_promo_groups import plugin as promo_groups
from subsvc_subscriptions import plugin
from subsvc_users import plugin as users

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {"subscriptions", "traffic_purchases"}


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
    dirs = [p.register_migrations() for p in (promo_groups, users, plugin)]
    for p in (promo_groups, users, plugin):
        p.register_models()

    migrate.upgrade(async_url, dirs)
    assert _tables(sync_url) >= TABLES | {"users"}
    assert "subscriptions_0001" in migrate.heads(async_url, dirs)

    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            diffs = schema_differences(connection, TABLES)
    finally:
        engine.dispose()
    assert diffs == []

    migrate.downgrade(async_url, dirs, "subscriptions@base")
    remaining = _tables(sync_url)
    assert not TABLES & remaining
    assert "users" in remaining  # the branches it depends on are left alone
