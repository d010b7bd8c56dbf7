"""pytest plugin for subsvc and its plugins (loaded automatically once subsvc is installed).

Fixtures:
- ``subsvc_database_url``: SQLite in a temporary folder, or ``TEST_DATABASE_URL``
  (PostgreSQL; its ``public`` schema is emptied at the start of the session).
- ``subsvc_plugins``: the plugins to run; ``None`` = every installed plugin. Override it
  in a ``conftest.py`` to test a plugin alone or with a test plugin module.
- ``subsvc_settings_overrides``: a dict of settings for the app; override per module.
- ``subsvc_settings``, ``app`` (migrated, started, and emptied of rows afterwards),
- ``client`` (an ``httpx2.AsyncClient`` with the API key), ``anon_client`` (no credentials),
- ``rows`` (a table's rows by filter), ``api_key``, ``user_token`` and ``admin_token``
  (cabinet access JWTs), ``db`` (the app's :class:`~subsvc.db.Database`).
- ``fake_bot_api``: a loopback fake of the messenger's Bot API
  (:mod:`subsvc.testing_messenger`); point the app at it with
  ``subsvc_settings_overrides`` returning ``fake_bot_api.settings()``.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx2
import pytest
from sqlalchemy import Column, Index, Table, UniqueConstraint, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool
from sqlmodel import SQLModel, select
from starlette.applications import Starlette

from subsvc.app import create_app
from subsvc.db import Database
from subsvc.db import migrate as migrations
from subsvc.settings import Settings
from subsvc.testing_messenger import fake_bot_api  # noqa: F401 - the fixture, for every test

API_KEY = "test-api-key-0123456789abcdef"
JWT_SECRET = "test-jwt-secret-that-is-long-enough-0123456789"  # noqa: S105 - test fixture
ADMIN_MESSENGER_ID = 900_000_001
USER_MESSENGER_ID = 900_000_002
_migrated: dict[str, set[str]] = {}
_tables: dict[str, set[str]] = {}


async def reset_database(url: str) -> None:
    """Drop everything in a test database (PostgreSQL: the public schema; SQLite: the file)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database:
            Path(parsed.database).unlink(missing_ok=True)  # noqa: ASYNC240 - test set-up
        return
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.begin() as connection:
            await connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            await connection.execute(text("CREATE SCHEMA public"))
    finally:
        await engine.dispose()


async def ensure_migrated(url: str, dirs: list[Path]) -> None:
    """Upgrade to heads when a test brings migration folders this database has not seen.

    The folders of earlier tests stay in the set: their revisions are in the database, and
    Alembic must know every applied revision.
    """
    known = _migrated.setdefault(url, set())
    wanted = {str(d) for d in dirs}
    if wanted <= known:
        return
    known |= wanted
    await asyncio.to_thread(migrations.upgrade, url, [Path(d) for d in sorted(known)])
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as connection:
            names = await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    finally:
        await engine.dispose()
    _tables[url] = names - {"alembic_version"}


async def empty_tables(db: Database) -> None:
    """Delete every row of every migrated table (fast: no schema work between tests)."""
    existing = _tables.get(db.url, set())
    names = [t.name for t in reversed(SQLModel.metadata.sorted_tables) if t.name in existing]
    names += sorted(existing - set(names))
    if not names:
        return
    async with db.engine.begin() as connection:
        if db.dialect == "postgresql":
            quoted = ", ".join(f'"{name}"' for name in names)
            await connection.execute(text(f"TRUNCATE {quoted} RESTART IDENTITY CASCADE"))
        else:
            await connection.execute(text("PRAGMA foreign_keys=OFF"))
            for name in names:
                await connection.execute(text(f'DELETE FROM "{name}"'))  # noqa: S608 - names from the schema
            await connection.execute(text("PRAGMA foreign_keys=ON"))


BACKGROUND_TABLES = ("outbox_events", "web_api_tokens")


def schema_differences(connection: Any, tables: set[str]) -> list[Any]:
    """Alembic's differences between a migrated database (a synchronous connection) and the
    models, limited to ``tables``: a plugin's migrations must produce exactly its models."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return [diff for diff in compare_metadata(context, SQLModel.metadata) if _table_of(diff, tables)]


def _table_of(diff: Any, tables: set[str]) -> str | None:
    item = diff[0] if isinstance(diff, list) else diff
    for part in item[1:] if isinstance(item, tuple) else ():
        if isinstance(part, Table):
            return part.name if part.name in tables else None
        if isinstance(part, Index | UniqueConstraint | Column) and part.table is not None:
            return part.table.name if part.table.name in tables else None
        if isinstance(part, str) and part in tables:
            return part
    return None


@contextmanager
def recorded_statements(db: Database) -> Iterator[list[str]]:
    """The SQL statements run on ``db`` inside the block, leaving out core's background work
    (outbox dispatch, token-usage writes), which may run at any moment."""
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if not any(table in statement for table in BACKGROUND_TABLES):
            statements.append(statement)

    event.listen(db.engine.sync_engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", record)


@pytest.fixture(scope="session")
def subsvc_database_url() -> Iterator[str]:
    url = os.environ.get("TEST_DATABASE_URL")
    if url:
        asyncio.run(reset_database(url))
        yield url
        return
    with tempfile.TemporaryDirectory(prefix="subsvc-test-") as folder:
        yield f"sqlite+aiosqlite:///{folder}/test.db"


@pytest.fixture
def subsvc_plugins() -> list[ModuleType | str] | None:
    return None


@pytest.fixture
def subsvc_settings_overrides() -> dict[str, Any]:
    return {}


@pytest.fixture
def subsvc_settings(subsvc_database_url: str, subsvc_settings_overrides: dict[str, Any]) -> Settings:
    values: dict[str, Any] = {
        "DATABASE_URL": subsvc_database_url,
        "ENVIRONMENT": "test",
        "WEB_API_DEFAULT_TOKEN": API_KEY,
        "CABINET_JWT_SECRET": JWT_SECRET,
        "ADMIN_IDS": [ADMIN_MESSENGER_ID],
        "SUBSVC_PLUGINS": None,
        "SUBSVC_PLUGINS_DISABLED": [],
        "REDIS_URL": None,
        "IS_DOCS_ENABLED": False,
        **subsvc_settings_overrides,
    }
    return Settings(_env_file=None, **values)


@pytest.fixture
async def app(
    subsvc_settings: Settings, subsvc_plugins: list[ModuleType | str] | None
) -> AsyncIterator[Starlette]:
    application = create_app(subsvc_settings, plugins=subsvc_plugins)
    await ensure_migrated(subsvc_settings.DATABASE_URL, application.state.migration_dirs)
    async with application.router.lifespan_context(application):
        try:
            yield application
        finally:
            await empty_tables(application.state.db)


@pytest.fixture
def db(app: Starlette) -> Database:
    database: Database = app.state.db
    return database


Rows = Callable[..., Awaitable[list[Any]]]


@pytest.fixture
def rows(db: Database) -> Rows:
    """``await rows(Model, status="active")``: the table's rows matching the filters, by id
    (read in a session of its own, so it sees what requests committed)."""

    async def fetch(model: type[SQLModel], **filters: Any) -> list[Any]:
        query = select(model)
        for name, value in filters.items():
            query = query.where(getattr(model, name) == value)
        async with db.session() as session:
            result = await session.exec(query.order_by(model.id))  # type: ignore[attr-defined]
            return list(result.all())

    return fetch


@pytest.fixture
def api_key() -> str:
    return API_KEY


@pytest.fixture
async def anon_client(app: Starlette) -> AsyncIterator[httpx2.AsyncClient]:
    transport = httpx2.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


@pytest.fixture
async def client(app: Starlette, api_key: str) -> AsyncIterator[httpx2.AsyncClient]:
    transport = httpx2.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx2.AsyncClient(
        transport=transport, base_url="http://testserver", headers={"X-API-Key": api_key}
    ) as http:
        yield http


@pytest.fixture
def user_token(app: Starlette) -> str:
    """Access JWT of an ordinary cabinet user (id 2, not an administrator)."""
    token: str = app.state.jwt.access_token(2, messenger_id=USER_MESSENGER_ID)
    return token


@pytest.fixture
def admin_token(app: Starlette) -> str:
    """Access JWT of an administrator (id 1, messenger id in ``ADMIN_IDS``)."""
    token: str = app.state.jwt.access_token(1, messenger_id=ADMIN_MESSENGER_ID)
    return token
