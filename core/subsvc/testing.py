"""pytest plugin for subsvc and its plugins (loaded automatically once subsvc is installed).

Fixtures:
- ``subsvc_database_url``: SQLite in a temporary folder, or ``TEST_DATABASE_URL``
  (PostgreSQL; its ``public`` schema is emptied at the start of the session; under
  pytest-xdist, workers after the first use ``<database>_<worker>``, created if missing).
- ``redis_url``: a Redis for the tests that need one (a database number per xdist worker).
- ``subsvc_plugins``: the plugins to run; ``None`` = every installed plugin. Override it
  in a ``conftest.py`` to test a plugin alone or with a test plugin module.
- ``subsvc_settings_overrides``: a dict of settings for the app; override per module;
  ``change_settings(XSettings, NAME=value)`` changes a plugin's settings for one test.
- ``subsvc_settings``, ``app`` (migrated, started, and emptied of rows afterwards),
- ``client`` (an ``httpx2.AsyncClient`` with the API key), ``anon_client`` (no credentials),
- ``rows`` (a table's rows by filter), ``api_key``, ``user_token`` and ``admin_token``
  (cabinet access JWTs), ``db`` (the app's :class:`~subsvc.db.Database`).
- ``fake_bot_api``: a loopback fake of the messenger's Bot API
  (:mod:`subsvc.testing_messenger`); point the app at it with
  ``subsvc_settings_overrides`` returning ``fake_bot_api.settings()``.
- Shared by the plugins' tests: ``admin`` and ``member`` (bearer clients of ``admin_token``
  and ``user_token``; :func:`bearer_client` for any token), ``reload`` (a row as
  committed), ``outbox`` (``(event_type, payload)`` pairs), ``wait_for`` (:func:`wait_until`),
  ``utc_time`` (:func:`parse_utc`), ``cabinet`` (``cabinet(user_id)``: a bearer client of
  that user), ``base`` and ``serve`` (the app, or another, on a loopback uvicorn:
  :func:`serving`). Helpers: :func:`stored` (a row committed and read back), :func:`created`
  (a POST asserting its status), :func:`set_env` and :func:`marked_env` (plugin settings in
  the environment, from a dict and the test's marks). Migration tests:
  :mod:`subsvc.testing_migrations`.

Core's kit imports no plugin; each plugin's domain comes with its own kit
(``subsvc_<name>.testing``): users (``make_user``, ``insert_user``, ``api_user``,
``admin_user``, ``member_user``), subscriptions (``make_subscription``), panel
(``fake_panel``, ``panel_env``), rbac (``role_holder``), cabinet_oauth (the fake provider).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import httpx2
import pytest
from sqlalchemy import Column, Index, Table, UniqueConstraint, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool
from sqlmodel import SQLModel, select
from starlette.applications import Starlette

from subsvc.api import Endpoint
from subsvc.app import create_app
from subsvc.db import Database
from subsvc.db import migrate as migrations
from subsvc.events import OutboxEvent
from subsvc.settings import PluginSettings, Settings
from subsvc.testing_db import ensure_database
from subsvc.testing_messenger import fake_bot_api  # noqa: F401 - the fixture, for every test
from subsvc.testing_server import LoopbackServer

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
    first = url not in _migrated  # core's own branch is migrated even without plugin folders
    known = _migrated.setdefault(url, set())
    wanted = {str(d) for d in dirs}
    if wanted <= known and not first:
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
    """Delete every row of every migrated table and restart the id sequences, touching only
    the tables that have rows (one query finds them): a test leaves most tables empty, and
    emptying all of them after each test costs more than most tests."""
    existing = _tables.get(db.url, set())
    names = [t.name for t in reversed(SQLModel.metadata.sorted_tables) if t.name in existing]
    names += sorted(existing - set(names))
    if not names:
        return
    probe = " UNION ALL ".join(
        f'SELECT {i} WHERE EXISTS (SELECT 1 FROM "{name}")'  # noqa: S608 - names from the schema
        for i, name in enumerate(names)
    )
    async with db.engine.begin() as connection:
        filled = [names[i] for i in (await connection.execute(text(probe))).scalars()]
        if db.dialect == "postgresql":
            if filled:
                quoted = ", ".join(f'"{name}"' for name in filled)
                await connection.execute(text(f"TRUNCATE {quoted} CASCADE"))
            await connection.execute(text(_RESTART_SEQUENCES))
            return
        if filled:
            await connection.execute(text("PRAGMA foreign_keys=OFF"))
            for name in filled:
                await connection.execute(text(f'DELETE FROM "{name}"'))  # noqa: S608 - names from the schema
            await connection.execute(text("PRAGMA foreign_keys=ON"))


# Every sequence of the public schema that has handed out a value starts again at 1.
_RESTART_SEQUENCES = (
    "SELECT setval(format('%I.%I', schemaname, sequencename)::regclass, 1, false) "
    "FROM pg_sequences WHERE schemaname = current_schema() AND last_value IS NOT NULL"
)


BACKGROUND_TABLES = ("outbox_events", "outbox_failures", "web_api_tokens")
# asyncpg's own queries when it first meets a type on a connection (jit off around them)
_INTROSPECTION = ("'jit'", "typeinfo_tree")


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
def recorded_statements(db: Database, *, everything: bool = False) -> Iterator[list[str]]:
    """The SQL statements run on ``db`` inside the block (on connections taken from the pool
    inside it), leaving out (unless ``everything``) the statements on the tables of core's
    background work (outbox dispatch, token-usage writes), which may run at any moment. Reads
    straight through the driver (:class:`~subsvc.db.DriverSelect`) are seen by the driver's
    query logger."""
    statements: list[str] = []
    transaction_control = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if everything or not any(table in statement for table in BACKGROUND_TABLES):
            statements.append(statement)

    def record_driver_query(query: Any) -> None:
        text_ = query.query.lstrip()
        if text_.upper().startswith(transaction_control) or any(m in text_ for m in _INTROSPECTION):
            return
        record(None, None, text_)

    def watch(dbapi_connection: Any, record_: Any, proxy: Any) -> None:
        if db.dialect == "postgresql":
            record_.driver_connection.add_query_logger(record_driver_query)

    def unwatch(dbapi_connection: Any, record_: Any) -> None:
        if db.dialect == "postgresql" and record_.driver_connection is not None:
            record_.driver_connection.remove_query_logger(record_driver_query)

    engine = db.engine.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    event.listen(engine.pool, "checkout", watch)
    event.listen(engine.pool, "checkin", unwatch)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", record)
        event.remove(engine.pool, "checkout", watch)
        event.remove(engine.pool, "checkin", unwatch)


@pytest.fixture(scope="session")
def subsvc_database_url() -> Iterator[str]:
    url = os.environ.get("TEST_DATABASE_URL")
    if url:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
        if worker != "gw0":  # each pytest-xdist worker has a database of its own
            parsed = make_url(url)
            url = parsed.set(database=f"{parsed.database}_{worker}").render_as_string(hide_password=False)
            asyncio.run(ensure_database(url))
        asyncio.run(reset_database(url))
        yield url
        return
    with tempfile.TemporaryDirectory(prefix="subsvc-test-") as folder:
        yield f"sqlite+aiosqlite:///{folder}/test.db"


@pytest.fixture(scope="session")
def redis_url() -> str:
    """A Redis for the tests that need one: ``TEST_REDIS_URL`` (default the local one,
    database 15), skipped when none answers, except under CI. Each pytest-xdist worker takes
    the next lower database number, so parallel workers share neither keys nor bus channels."""
    import redis

    url = make_url(os.environ.get("TEST_REDIS_URL") or "redis://127.0.0.1:6379/15")
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    url = url.set(database=str((int(url.database or 0) - worker) % 16))
    rendered = url.render_as_string(hide_password=False)
    client = redis.Redis.from_url(rendered)
    try:
        client.ping()
    except redis.RedisError:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no Redis answers at {url}")
    finally:
        client.close()
    return rendered


@pytest.fixture
def subsvc_plugins() -> list[ModuleType | str] | None:
    return None


@pytest.fixture
def subsvc_settings_overrides() -> dict[str, Any]:
    return {}


def settings_for_tests(database_url: str, **overrides: Any) -> Settings:
    """A test app's settings (no ``.env``): ``database_url``, the test API key, JWT secret and
    administrator, every installed plugin, no Redis, no docs; ``overrides`` on top."""
    values: dict[str, Any] = {
        "DATABASE_URL": database_url,
        "ENVIRONMENT": "test",
        "WEB_API_DEFAULT_TOKEN": API_KEY,
        "CABINET_JWT_SECRET": JWT_SECRET,
        "ADMIN_IDS": [ADMIN_MESSENGER_ID],
        "SUBSVC_PLUGINS": None,
        "SUBSVC_PLUGINS_DISABLED": [],
        "REDIS_URL": None,
        "IS_DOCS_ENABLED": False,
        **overrides,
    }
    return Settings(_env_file=None, **values)


@pytest.fixture
def subsvc_settings(subsvc_database_url: str, subsvc_settings_overrides: dict[str, Any]) -> Settings:
    return settings_for_tests(subsvc_database_url, **subsvc_settings_overrides)


@pytest.fixture
async def app(
    subsvc_settings: Settings, subsvc_plugins: list[ModuleType | str] | None
) -> AsyncIterator[Starlette]:
    application = create_app(subsvc_settings, plugins=subsvc_plugins)
    await ensure_migrated(subsvc_settings.DATABASE_URL, application.state.migration_dirs)
    async with running(application):
        yield application


@asynccontextmanager
async def running(application: Starlette) -> AsyncIterator[Starlette]:
    """The app started for a test; once it has stopped, its database emptied again. (Only
    then: its background work — jobs, senders, syncs — would otherwise still hold rows while
    they are removed, and PostgreSQL may answer with a deadlock.)"""
    try:
        async with application.router.lifespan_context(application):
            yield application
    finally:
        await empty_tables(application.state.db)
        await application.state.db.dispose()


@pytest.fixture
def change_settings(app: Starlette, monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """``change_settings(CabinetSettings, HIDE_SUBSCRIPTION_LINK=True)``: a plugin's settings
    of the running app changed for this test (restored after it)."""

    def change(cls: type[PluginSettings], **values: Any) -> None:
        name = app.state.settings_names[cls]
        monkeypatch.setitem(app.state.settings_of, name, cls.of(app).model_copy(update=values))

    return change


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


class UndocumentedAnswer(AssertionError):
    """An operation answered a status its OpenAPI responses do not list."""


class DocumentedAnswers:
    """The app as the test clients reach it: a request whose operation answers a status its
    OpenAPI document does not list (:attr:`subsvc.api.Endpoint.answers`) fails the test. A 500
    is left to the test: it is a defect wherever it comes from."""

    def __init__(self, app: Starlette) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        status = 0

        async def watched(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        await self.app(scope, receive, watched)
        endpoint = getattr(scope.get("endpoint"), "__self__", None)
        if (
            isinstance(endpoint, Endpoint)
            and endpoint.include_in_schema
            and scope["method"] == endpoint.method  # else the router's 405
            and status not in endpoint.answers
            and status != 500
        ):
            raise UndocumentedAnswer(
                f"{endpoint.method} {endpoint.path} answered {status}; its responses list "
                f"{sorted(endpoint.answers)}: declare it in the endpoint's `responses`"
            )


def asgi_transport(app: Starlette, client_ip: str = "127.0.0.1") -> httpx2.ASGITransport:
    """The transport of the test clients: ``app`` through :class:`DocumentedAnswers`."""
    return httpx2.ASGITransport(app=DocumentedAnswers(app), client=(client_ip, 50000))


@pytest.fixture
async def anon_client(app: Starlette) -> AsyncIterator[httpx2.AsyncClient]:
    transport = asgi_transport(app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


@pytest.fixture
async def client(app: Starlette, api_key: str) -> AsyncIterator[httpx2.AsyncClient]:
    transport = asgi_transport(app)
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


# Helpers the plugins' tests share (a conftest.py may still define its own variant by name).


def bearer_client(app: Starlette, token: str, client_ip: str = "127.0.0.1") -> httpx2.AsyncClient:
    """A client of ``app`` sending ``token`` as its bearer (use it with ``async with``)."""
    transport = asgi_transport(app, client_ip)
    return httpx2.AsyncClient(
        transport=transport, base_url="http://testserver", headers={"Authorization": f"Bearer {token}"}
    )


@pytest.fixture
async def admin(app: Starlette, admin_token: str) -> AsyncIterator[httpx2.AsyncClient]:
    """A client with the administrator's access JWT (``admin_token``: user 1, ``ADMIN_IDS``)."""
    async with bearer_client(app, admin_token) as http:
        yield http


@pytest.fixture
async def member(app: Starlette, user_token: str) -> AsyncIterator[httpx2.AsyncClient]:
    """A client with an ordinary cabinet user's access JWT (``user_token``: user 2, no role)."""
    async with bearer_client(app, user_token) as http:
        yield http


@pytest.fixture
def reload(db: Database) -> Callable[..., Awaitable[Any]]:
    """``await reload(Model, id)``: the row as committed now (``None`` when gone)."""

    async def read(model: type[Any], key: Any) -> Any:
        async with db.session() as session:
            return await session.get(model, key)

    return read


Outbox = Callable[[], Awaitable[list[tuple[str, dict[str, Any]]]]]


@pytest.fixture
def outbox(rows: Rows) -> Outbox:
    """The outbox rows as ``(event_type, payload)``, oldest first."""

    async def read() -> list[tuple[str, dict[str, Any]]]:
        return [(row.event_type, row.payload) for row in await rows(OutboxEvent)]

    return read


async def wait_until(predicate: Callable[[], Awaitable[Any] | Any], seconds: float = 10.0) -> Any:
    """Poll ``predicate`` (plain or async) until it holds; its (true) result. Fail after
    ``seconds``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        result = predicate()
        if isinstance(result, Awaitable):
            result = await result
        if result:
            return result
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.02)


@pytest.fixture
def wait_for() -> Callable[..., Awaitable[Any]]:
    """``await wait_for(predicate, seconds=10)`` (plain or async predicate): poll until it
    holds (work done after a response)."""
    return wait_until


def parse_utc(value: str) -> datetime:
    """Parse a response's ISO 8601 timestamp, asserting it is timezone-aware UTC."""
    parsed = datetime.fromisoformat(value)
    offset = parsed.utcoffset()
    assert offset is not None and offset.total_seconds() == 0, f"not UTC with an offset: {value}"
    return parsed


@pytest.fixture
def utc_time() -> Callable[[str], datetime]:
    """Parse a response's ISO 8601 timestamp, asserting it is timezone-aware UTC."""
    return parse_utc


# Factories and servers the plugins' tests share.

Row = TypeVar("Row")


async def stored(db: Database, row: Row) -> Row:
    """``row`` added and committed, then read back (its id and database defaults filled in)."""
    async with db.session() as session:
        session.add(row)
        await session.commit()
        await session.refresh(row)
    return row


async def created(
    http: httpx2.AsyncClient, path: str, body: dict[str, Any], status: int = 201
) -> dict[str, Any]:
    """POST ``body`` to ``path`` as ``http``, asserting ``status``; the answer's JSON object."""
    response = await http.post(path, json=body)
    assert response.status_code == status, response.text
    answer: dict[str, Any] = response.json()
    return answer


def set_env(monkeypatch: pytest.MonkeyPatch, values: dict[str, Any]) -> dict[str, str]:
    """Put ``values`` (as text) in the environment for this test (plugins read their settings
    there when the app is built); the values set."""
    texts = {name: str(value) for name, value in values.items()}
    for name, value in texts.items():
        monkeypatch.setenv(name, value)
    return texts


def marked_env(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, marker: str, values: dict[str, Any]
) -> dict[str, str]:
    """:func:`set_env` of ``values`` updated by the test's ``@pytest.mark.<marker>(NAME=value)``."""
    values = dict(values)
    for mark in request.node.iter_markers(marker):
        values.update(mark.kwargs)
    return set_env(monkeypatch, values)


@pytest.fixture
def cabinet(app: Starlette) -> Callable[[int], httpx2.AsyncClient]:
    """``async with cabinet(user_id) as http``: a client carrying that user's access JWT."""

    def make(user_id: int) -> httpx2.AsyncClient:
        return bearer_client(app, app.state.jwt.access_token(user_id))

    return make


@asynccontextmanager
async def serving(app: Starlette) -> AsyncIterator[str]:
    """A started app served on a free loopback port; yields its ws:// base URL."""
    async with LoopbackServer(app) as server:
        yield server.ws_url


@pytest.fixture
def serve() -> Callable[[Starlette], AbstractAsyncContextManager[str]]:
    """``async with serve(app) as base``: :func:`serving` (another app, too)."""
    return serving


@pytest.fixture
async def base(app: Starlette) -> AsyncIterator[str]:
    """The app on a loopback uvicorn: its ws:// base URL (WebSocket tests)."""
    async with serving(app) as url:
        yield url
