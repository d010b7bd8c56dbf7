"""Migration tests in one piece: a fresh SQLite file with some plugins' Alembic branches on top
of core's, what a test looks at (tables, indexes, keys, differences from the models), and the
round trip every branch must pass (upgrade, match the models, downgrade alone).

    def test_branch(tmp_path):
        with migrated_database(tmp_path, users_plugin, plugin) as db:
            assert db.indexes("things") == {"ix_things_user_id": ["user_id"]}
            db.round_trip("things", head="things_0001", tables={"things"}, kept={"users"})
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Inspector

from subsvc.db import migrate
from subsvc.plugins import from_modules
from subsvc.testing import schema_differences


class MigratedDatabase:
    """A SQLite file in ``folder`` whose migrations are core's plus the branches of the
    ``plugins`` and the plugins they require (names or modules, as
    :func:`subsvc.plugins.from_modules` takes them); their models are registered too."""

    def __init__(self, folder: Path, *plugins: Any) -> None:
        path = folder / "migrations.db"
        self.async_url, self.sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
        infos = from_modules(list(plugins)).values()
        self.dirs: list[Path] = [info.migrations for info in infos if info.migrations is not None]
        for info in infos:
            if hasattr(info.module, "register_models"):
                info.module.register_models()
        self._engine = sa.create_engine(self.sync_url)

    def upgrade(self) -> None:
        migrate.upgrade(self.async_url, self.dirs)

    def downgrade(self, branch: str) -> None:
        """Remove one branch (``<branch>@base``), leaving the others."""
        migrate.downgrade(self.async_url, self.dirs, f"{branch}@base")

    def heads(self) -> set[str]:
        """The revision heads of core plus the plugins' branches."""
        return set(migrate.heads(self.async_url, self.dirs))

    def core_heads(self) -> set[str]:
        return set(migrate.heads(self.async_url, []))

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        with self._engine.connect() as connection:
            yield connection

    @contextmanager
    def inspector(self) -> Iterator[Inspector]:
        with self.connect() as connection:
            yield sa.inspect(connection)

    def tables(self) -> set[str]:
        with self.inspector() as inspector:
            return set(inspector.get_table_names())

    def indexes(self, table: str) -> dict[str, list[str]]:
        """The table's indexes: name -> column names."""
        with self.inspector() as inspector:
            return {
                str(ix["name"]): [str(c) for c in ix["column_names"]] for ix in inspector.get_indexes(table)
            }

    def unique_constraints(self, table: str) -> list[list[str]]:
        """The column names of each unique constraint of the table."""
        with self.inspector() as inspector:
            return [list(u["column_names"]) for u in inspector.get_unique_constraints(table)]

    def foreign_keys(self, table: str) -> list[tuple[str, str | None]]:
        """``(referred table, ON DELETE)`` of each foreign key of the table, sorted."""
        with self.inspector() as inspector:
            keys = [
                (fk["referred_table"], fk["options"].get("ondelete"))
                for fk in inspector.get_foreign_keys(table)
            ]
        return sorted(keys, key=lambda key: (key[0], key[1] or ""))

    def differences(self, tables: set[str]) -> list[Any]:
        """Alembic's differences between the migrated file and the models, for ``tables``."""
        with self.connect() as connection:
            return schema_differences(connection, tables)

    def round_trip(
        self, branch: str, *, head: str, tables: set[str], kept: set[str] | frozenset[str] = frozenset()
    ) -> None:
        """The common check on an upgraded file: ``head`` is a head, ``tables`` exist and match
        the models; then downgrading ``branch`` removes them all and leaves ``kept``."""
        assert head in self.heads()
        assert self.tables() >= tables
        assert self.differences(tables) == []
        self.downgrade(branch)
        remaining = self.tables()
        assert not tables & remaining
        assert kept <= remaining  # the branches it builds on (or core's) are left alone

    def close(self) -> None:
        self._engine.dispose()


@contextmanager
def migrated_database(folder: Path, *plugins: Any) -> Iterator[MigratedDatabase]:
    """A :class:`MigratedDatabase`, upgraded to every head, closed afterwards."""
    database = MigratedDatabase(folder, *plugins)
    try:
        database.upgrade()
        yield database
    finally:
        database.close()
