"""The `pages` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_pages import plugin

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {"service_rules", "public_offers", "privacy_policies", "faq_settings", "faq_pages"}


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
    dirs = [plugin.register_migrations()]
    plugin.register_models()

    migrate.upgrade(async_url, dirs)
    assert _tables(sync_url) >= TABLES
    assert set(migrate.heads(async_url, dirs)) == {*migrate.heads(async_url, []), "pages_0001"}

    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            diffs = schema_differences(connection, TABLES)
    finally:
        engine.dispose()
    assert diffs == []

    migrate.downgrade(async_url, dirs, "pages@base")
    remaining = _tables(sync_url)
    assert not TABLES & remaining
    assert "web_api_tokens" in remaining  # core's branch is left alone
