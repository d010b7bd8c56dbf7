"""Migration tests in one piece: a fresh SQLite file (or PostgreSQL database) with some plugins'
Alembic branches on top of core's, what a test looks at (tables, indexes, keys, differences
from the models), and the round trip every branch must pass (upgrade, match the models,
downgrade alone). ``tests/test_plugin_migrations.py`` runs that round trip for every installed
plugin; a plugin's own migration tests check only what is particular to it.

    def test_branch(tmp_path):
        with migrated_database(tmp_path, users_plugin, plugin) as db:
            assert db.indexes("things") == {"ix_things_user_id": ["user_id"]}
            db.round_trip("things", head="things_0001", tables={"things"}, kept={"users"})
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Inspector, make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from subsvc.db import migrate
from subsvc.plugins import from_modules
from subsvc.testing import reset_database, schema_differences
from subsvc.testing_db import ensure_database

T = TypeVar("T")


class MigratedDatabase:
    """A SQLite file in ``folder`` whose migrations are core's plus the branches of the
    ``plugins`` and the plugins they require (names or modules, as
    :func:`subsvc.plugins.from_modules` takes them); their models are registered too.

    With ``url`` (a PostgreSQL URL) the database is that one instead: created if missing and
    its ``public`` schema emptied first. There, look at it through :meth:`run` and the
    methods built on it (:meth:`connect` and :meth:`inspector` are SQLite's only: PostgreSQL
    is reached through the asynchronous driver)."""

    def __init__(self, folder: Path, *plugins: Any, url: str | None = None) -> None:
        path = folder / "migrations.db"
        self.async_url, self.sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
        self.dialect = "sqlite"
        if url is not None and make_url(url).get_backend_name() == "postgresql":
            self.async_url, self.sync_url, self.dialect = url, "", "postgresql"
            asyncio.run(_fresh_database(url))
        infos = from_modules(list(plugins)).values()
        self.dirs: list[Path] = [info.migrations for info in infos if info.migrations is not None]
        for info in infos:
            if hasattr(info.module, "register_models"):
                info.module.register_models()
        self._engine = sa.create_engine(self.sync_url) if self.sync_url else None

    def upgrade(self, revision: str | None = None) -> None:
        """Upgrade to every head, or only to ``revision``."""
        migrate.upgrade(self.async_url, self.dirs, revision or "heads")

    def downgrade(self, branch: str) -> None:
        """Remove one branch (``<branch>@base``), leaving the others."""
        migrate.downgrade(self.async_url, self.dirs, f"{branch}@base")

    def downgrade_to(self, revision: str) -> None:
        """Downgrade to ``revision`` (a data migration's way back)."""
        migrate.downgrade(self.async_url, self.dirs, revision)

    def heads(self) -> set[str]:
        """The revision heads of core plus the plugins' branches."""
        return set(migrate.heads(self.async_url, self.dirs))

    def core_heads(self) -> set[str]:
        return set(migrate.heads(self.async_url, []))

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        """A synchronous connection to the SQLite file (SQLite only: use :meth:`run` for both)."""
        if self._engine is None:
            raise NotImplementedError("connect() is SQLite's only: use run(function) on PostgreSQL")
        with self._engine.connect() as connection:
            yield connection

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        """A synchronous connection in a transaction committed at the end (SQLite only), e.g.
        to put rows in before a data migration."""
        if self._engine is None:
            raise NotImplementedError("begin() is SQLite's only: use run(function) on PostgreSQL")
        with self._engine.begin() as connection:
            yield connection

    @contextmanager
    def inspector(self) -> Iterator[Inspector]:
        with self.connect() as connection:
            yield sa.inspect(connection)

    def run(self, function: Callable[[Connection], T]) -> T:
        """``function(connection)`` on a synchronous connection, on either database."""
        if self._engine is not None:
            with self._engine.connect() as connection:
                return function(connection)
        return asyncio.run(_run_async(self.async_url, function))

    def inspect(self, function: Callable[[Inspector], T]) -> T:
        """``function(inspector)`` on either database."""
        return self.run(lambda connection: function(sa.inspect(connection)))

    def tables(self) -> set[str]:
        return self.inspect(lambda inspector: set(inspector.get_table_names()))

    def indexes(self, table: str) -> dict[str, list[str]]:
        """The table's indexes: name -> column names."""
        return self.inspect(
            lambda inspector: {
                str(ix["name"]): [str(c) for c in ix["column_names"]] for ix in inspector.get_indexes(table)
            }
        )

    def unique_constraints(self, table: str) -> list[list[str]]:
        """The column names of each unique constraint of the table."""
        return self.inspect(
            lambda inspector: [list(u["column_names"]) for u in inspector.get_unique_constraints(table)]
        )

    def foreign_keys(self, table: str) -> list[tuple[str, str | None]]:
        """``(referred table, ON DELETE)`` of each foreign key of the table, sorted."""
        keys = self.inspect(
            lambda inspector: [
                (fk["referred_table"], fk["options"].get("ondelete"))
                for fk in inspector.get_foreign_keys(table)
            ]
        )
        return sorted(keys, key=lambda key: (key[0], key[1] or ""))

    def differences(self, tables: set[str], *, extra_indexes: Collection[str] = ()) -> list[Any]:
        """Alembic's differences between the migrated database and the models, for ``tables``,
        but for the indexes named in ``extra_indexes`` (added by a migration on purpose
        without a model's index, e.g. PostgreSQL's trigram indexes)."""
        found = self.run(lambda connection: schema_differences(connection, tables))
        return [diff for diff in found if not _is_extra_index(diff, extra_indexes)]

    def round_trip(
        self,
        branch: str,
        *,
        head: str,
        tables: set[str],
        kept: set[str] | frozenset[str] = frozenset(),
        extra_indexes: Collection[str] = (),
    ) -> None:
        """The common check on an upgraded file: ``head`` is a head, ``tables`` exist and match
        the models (``extra_indexes`` apart: see :meth:`differences`); then downgrading
        ``branch`` removes them all and leaves ``kept``."""
        assert head in self.heads()
        assert self.tables() >= tables
        assert self.differences(tables, extra_indexes=extra_indexes) == []
        self.downgrade(branch)
        remaining = self.tables()
        assert not tables & remaining
        assert kept <= remaining  # the branches it builds on (or core's) are left alone

    def close(self) -> None:
        if self._engine is not None:
            self._engine.dispose()


def _is_extra_index(diff: Any, names: Collection[str]) -> bool:
    """Is ``diff`` Alembic's "remove index" of one of ``names`` (in the database, not the models)?"""
    return isinstance(diff, tuple) and diff[0] == "remove_index" and diff[1].name in names


async def _fresh_database(url: str) -> None:
    """Create the PostgreSQL database if missing and empty its public schema."""
    await ensure_database(url)
    await reset_database(url)


async def _run_async(url: str, function: Callable[[Connection], T]) -> T:
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(function)
    finally:
        await engine.dispose()


@contextmanager
def migrated_database(
    folder: Path, *plugins: Any, url: str | None = None, at: str | None = None
) -> Iterator[MigratedDatabase]:
    """A :class:`MigratedDatabase` (on ``url`` when it is PostgreSQL), upgraded to every head
    (with ``at``, only to that revision: rows go in before a data migration), closed
    afterwards."""
    database = MigratedDatabase(folder, *plugins, url=url)
    try:
        database.upgrade(at)
        yield database
    finally:
        database.close()
