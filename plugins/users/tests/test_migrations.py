"""The `users` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlmodel import SQLModel
from subsvc_promo_groups import plugin as promo_groups_plugin
from subsvc_users import plugin

from subsvc.db import migrate

TABLES = {"users"}


def _inspect(url: str):
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            tables = set(inspector.get_table_names())
            indexes = {i["name"] for i in inspector.get_indexes("users")} if "users" in tables else set()
            return tables, indexes
    finally:
        engine.dispose()


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    dirs = [promo_groups_plugin.register_migrations(), plugin.register_migrations()]
    plugin.register_models()

    migrate.upgrade(async_url, dirs)
    tables, indexes = _inspect(sync_url)
    assert tables >= TABLES | {"promo_groups"}
    assert {
        "ix_users_created_at_id",
        "ix_users_status_created_at_id",
        "ix_users_promo_group_created_at_id",
    } <= indexes
    assert "users_0001" in migrate.heads(async_url, dirs)

    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            diffs = [d for d in compare_metadata(context, SQLModel.metadata) if _table_of(d) in TABLES]
    finally:
        engine.dispose()
    assert diffs == []

    migrate.downgrade(async_url, dirs, "users@base")
    tables, _ = _inspect(sync_url)
    assert "users" not in tables
    assert "promo_groups" in tables  # the branch it depends on is left alone


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
