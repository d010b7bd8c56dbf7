"""Every installed plugin's Alembic branch, from its declaration: on a fresh database (SQLite,
or ``TEST_DATABASE_URL`` when it is PostgreSQL) with core's branch and those of the plugins it
requires, the branch upgrades to its head, its tables match its declared models, and it
downgrades alone, leaving the tables of the plugins it builds on and core's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy.engine import make_url

from subsvc.db import migrate
from subsvc.plugins import PluginInfo, discover, from_modules, internal_plugins
from subsvc.testing_migrations import migrated_database

WITH_MIGRATIONS = sorted(name for name, info in discover().items() if info.migrations is not None)
# Indexes a branch creates on purpose without a model's index, per database: users' "contains"
# search over these columns uses PostgreSQL trigram indexes (GIN), which SQLite has not.
EXTRA_INDEXES: dict[str, dict[str, set[str]]] = {
    "postgresql": {
        "users": {f"ix_users_{c}_trgm" for c in ("username", "first_name", "last_name", "referral_code")}
    },
}


def _tables(info: PluginInfo) -> set[str]:
    """The table names of the models the plugin declares."""
    register = getattr(info.module, "register_models", None)
    return {model.__tablename__ for model in (register() if register is not None else [])}


def _branch_heads(folder: Path, dirs: list[Path]) -> set[str]:
    """The head revisions whose files are in ``folder`` (one plugin's branch), among ``dirs``."""
    script = ScriptDirectory.from_config(migrate.alembic_config("sqlite://", dirs))
    return {
        revision.revision
        for revision in script.get_revisions("heads")
        if revision is not None and revision.path is not None and Path(revision.path).parent == folder
    }


@pytest.fixture
def migrations_url(subsvc_database_url: str) -> str | None:
    """A PostgreSQL database of its own next to the test database, or ``None`` (SQLite)."""
    url = make_url(subsvc_database_url)
    if url.get_backend_name() != "postgresql":
        return None
    return url.set(database=f"{url.database}_migrations").render_as_string(hide_password=False)


def test_every_plugin_with_a_migrations_folder_is_here():
    assert len(WITH_MIGRATIONS) >= 20
    assert {"users", "rbac", "panel_sync", "welcome_texts"} <= set(WITH_MIGRATIONS)


@pytest.mark.parametrize("name", WITH_MIGRATIONS)
def test_the_branch_upgrades_matches_its_models_and_downgrades_alone(
    tmp_path: Path, migrations_url: str | None, name: str
) -> None:
    plugins = from_modules([name])
    info = plugins.pop(name)
    assert info.migrations is not None
    tables = _tables(info)
    assert tables, f"plugin {name!r} has migrations but declares no models"
    kept: set[Any] = set().union(*(_tables(other) for other in plugins.values()))
    kept |= set().union(*(_tables(core) for core in internal_plugins()))
    with migrated_database(tmp_path, name, url=migrations_url) as db:
        (head,) = _branch_heads(info.migrations, db.dirs)
        extra = EXTRA_INDEXES.get(db.dialect, {}).get(name, set())
        present = set().union(*(db.indexes(table) for table in tables))
        assert extra <= present  # each one listed is still made (else leave it off the list)
        db.round_trip(name, head=head, tables=tables, kept=kept, extra_indexes=extra)
