"""The `subscriptions` branch: it upgrades, matches the models, and downgrades cleanly."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlmodel import SQLModel
from subsvc_promo_groups import plugin as promo_groups
from subsvc_subscriptions import plugin
from subsvc_users import plugin as users

from subsvc.db import migrate

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
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            diffs = [d for d in compare_metadata(context, SQLModel.metadata) if _table_of(d) in TABLES]
    finally:
        engine.dispose()
    assert diffs == []

    migrate.downgrade(async_url, dirs, "subscriptions@base")
    remaining = _tables(sync_url)
    assert not TABLES & remaining
    assert "users" in remaining  # the branches it depends on are left alone


def _table_of(diff: object) -> str | None:
    item = diff[0] if isinstance(diff, list) else diff
    for part in item[1:] if isinstance(item, tuple) else ():
        if isinstance(part, sa.Table):
            return part.name
        if isinstance(part, sa.Index | sa.UniqueConstraint | sa.Column) and part.table is not None:
            return part.table.name
        if isinstance(part, str) and part in TABLES:
            return part
    return None
