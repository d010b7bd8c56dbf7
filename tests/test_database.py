"""The data layer: migrations from empty, UTC datetimes, 503 while the database is down."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone

import httpx2
import pytest
from outage import Outage
from sqlalchemy import inspect
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from subsvc.app import create_app
from subsvc.db import migrate, once_after_commit
from subsvc.db.database import WriteGate
from subsvc.testing import API_KEY


async def table_names(url: str) -> set[str]:
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    finally:
        await engine.dispose()


async def core_differences(url: str) -> list[object]:
    from subsvc.testing import schema_differences

    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(
                lambda sync: schema_differences(sync, {"outbox_events", "outbox_failures"})
            )
    finally:
        await engine.dispose()


@pytest.fixture
async def empty_url(subsvc_database_url, tmp_path):
    """A database with nothing in it: a new SQLite file, or a scratch PostgreSQL database."""
    url = make_url(subsvc_database_url)
    if url.get_backend_name() == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path}/empty.db"
        return
    scratch = url.set(database=f"{url.database}_migrations")
    admin = create_async_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    from sqlalchemy import text

    async with admin.connect() as connection:
        await connection.execute(text(f'DROP DATABASE IF EXISTS "{scratch.database}"'))
        await connection.execute(text(f'CREATE DATABASE "{scratch.database}"'))
    try:
        yield scratch.render_as_string(hide_password=False)
    finally:
        async with admin.connect() as connection:
            await connection.execute(text(f'DROP DATABASE IF EXISTS "{scratch.database}"'))
        await admin.dispose()


async def test_migrations_run_from_empty_up_and_down(empty_url, app):
    dirs = app.state.migration_dirs
    await asyncio.to_thread(migrate.upgrade, empty_url, dirs)
    assert {"web_api_tokens", "outbox_events", "probe_notes", "alembic_version"} <= await table_names(
        empty_url
    )
    assert sorted(await asyncio.to_thread(migrate.heads, empty_url, dirs)) == ["core_0005", "probe_0001"]
    await asyncio.to_thread(migrate.upgrade, empty_url, dirs)  # idempotent
    assert await core_differences(empty_url) == []  # core's migrations make core's models
    await asyncio.to_thread(migrate.downgrade, empty_url, dirs)
    assert await table_names(empty_url) <= {"alembic_version"}


async def test_datetimes_come_back_timezone_aware_utc(client):
    r = await client.post("/tokens", json={"name": "tz", "expires_at": "2030-01-01T03:00:00+03:00"})
    assert r.json()["expires_at"] == "2030-01-01T00:00:00Z"
    listed = {t["name"]: t for t in (await client.get("/tokens")).json()}
    assert listed["tz"]["expires_at"] == "2030-01-01T00:00:00Z"


def test_naive_datetimes_are_refused_by_the_column_type():
    from subsvc.db.types import UTCDateTime

    column = UTCDateTime()
    dialect = create_async_engine("sqlite+aiosqlite://").dialect
    with pytest.raises(ValueError, match="naive"):
        column.process_bind_param(datetime(2030, 1, 1), dialect)
    moscow = datetime(2030, 1, 1, 3, tzinfo=timezone(timedelta(hours=3)))
    assert column.process_bind_param(moscow, dialect) == datetime(2030, 1, 1)
    assert column.process_result_value(datetime(2030, 1, 1), dialect) == datetime(2030, 1, 1, tzinfo=UTC)


async def test_database_down_is_503_and_the_server_recovers_by_itself(subsvc_settings, app, tmp_path):
    outage = Outage(subsvc_settings.DATABASE_URL, tmp_path)
    settings = subsvc_settings.model_copy(
        update={"DATABASE_URL": await outage.url(), "DATABASE_TIMEOUT": 1.0}
    )
    unavailable = (503, {"detail": "Service temporarily unavailable. Please try again later."})
    service = create_app(settings, plugins=["subsvc_probe"])
    async with service.router.lifespan_context(service):  # starts although the database is down
        transport = httpx2.ASGITransport(app=service)
        async with httpx2.AsyncClient(
            transport=transport, base_url="http://t", headers={"X-API-Key": API_KEY}
        ) as http:
            r = await http.get("/probe/notes")
            assert (r.status_code, r.json()) == unavailable
            assert (await http.get("/health/database")).status_code == 503  # the key cannot be checked either
            assert (await http.get("/health")).status_code == 200  # liveness does not need the database
            await outage.up()
            assert (await http.get("/probe/notes")).status_code == 200
            assert (await http.get("/health/database")).json()["status"] == "ok"
            if outage.sqlite:
                return  # an open SQLite file stays usable; losing the server applies to PostgreSQL
            await outage.down()  # pooled connections break under the running app
            r = await http.get("/probe/notes")
            assert (r.status_code, r.json()) == unavailable
            r = await http.get("/health/database")  # the key is cached now: the probe itself answers
            assert r.status_code == 503 and r.json()["detail"]["status"] == "unavailable"
            await outage.up()
            assert (await http.get("/probe/notes")).status_code == 200


async def test_sqlite_connections_use_wal_and_enforce_foreign_keys(db):
    if db.dialect != "sqlite":
        pytest.skip("SQLite pragmas")
    from sqlalchemy import text

    async with db.engine.connect() as connection:
        assert (await connection.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
        assert (await connection.execute(text("PRAGMA foreign_keys"))).scalar() == 1


async def test_postgresql_connections_get_the_planner_cost_setting(db):
    if db.dialect != "postgresql":
        pytest.skip("a PostgreSQL planner setting")
    from sqlalchemy import text

    async with db.engine.connect() as connection:
        assert (await connection.execute(text("SHOW random_page_cost"))).scalar() == "1.1"


def test_schema_differences_reports_a_model_the_migration_does_not_match(tmp_path):
    import sqlalchemy as sa
    import subsvc_probe  # noqa: F401  (registers probe_notes in the metadata)

    from subsvc.testing import schema_differences

    engine = sa.create_engine(f"sqlite:///{tmp_path}/drift.db")
    try:
        with engine.begin() as connection:
            connection.execute(sa.text("CREATE TABLE probe_notes (id INTEGER PRIMARY KEY, text VARCHAR)"))
            diffs = schema_differences(connection, {"probe_notes"})
            assert diffs  # created_at is missing from the table
            assert schema_differences(connection, {"web_api_tokens_elsewhere"}) == []
    finally:
        engine.dispose()


def test_an_error_raised_from_none_while_handling_an_outage_is_not_an_outage():
    from subsvc.db import is_database_unavailable

    def failing(suppress: bool) -> BaseException:
        try:
            try:
                raise ConnectionRefusedError("database")
            except OSError:
                if suppress:
                    raise ValueError("a bug of ours") from None
                raise ValueError("a bug of ours")
        except ValueError as error:
            return error

    assert is_database_unavailable(failing(suppress=False))
    assert not is_database_unavailable(failing(suppress=True))


async def test_sqlite_writers_take_turns_in_arrival_order(db):
    """A writer that has waited goes before one that just came: with SQLite's own polling
    the newcomer would usually take the lock while the long waiter sleeps between polls."""
    if db.dialect != "sqlite":
        pytest.skip("SQLite's write gate")
    from sqlalchemy import text

    async with db.engine.begin() as connection:
        await connection.execute(text("CREATE TABLE gate_log (who TEXT)"))
    order: list[str] = []

    async def write(who: str) -> None:
        async with db.engine.begin() as connection:
            await connection.execute(text("INSERT INTO gate_log VALUES (:who)"), {"who": who})
            order.append(who)

    async with db.engine.connect() as first:
        await first.execute(text("SELECT 1"))  # a read takes no turn
        await first.execute(text("INSERT INTO gate_log VALUES ('first')"))
        waiter = asyncio.create_task(write("waiter"))
        await asyncio.sleep(0.7)  # long enough for SQLite's polling to sleep 100 ms at a time
        assert order == [] and not waiter.done()
        await first.commit()
        newcomer = asyncio.create_task(write("newcomer"))
        await asyncio.gather(waiter, newcomer)
    assert order == ["waiter", "newcomer"]
    async with db.engine.connect() as connection:
        assert len((await connection.execute(text("SELECT who FROM gate_log"))).all()) == 3


async def test_an_invalidated_writer_gives_its_turn_back(db):
    """A connection dropped in the middle of its transaction (a cancelled commit does this)
    hands the turn on; the pool then reports the discarded connection as ``None``, which
    must change nothing."""
    if db.dialect != "sqlite":
        pytest.skip("SQLite's write gate")
    from sqlalchemy import text

    async with db.engine.begin() as connection:
        await connection.execute(text("CREATE TABLE gate_drop (who TEXT)"))
    async with db.engine.connect() as dropped:
        transaction = await dropped.begin()
        await dropped.execute(text("INSERT INTO gate_drop VALUES ('dropped')"))
        await dropped.invalidate()
        await transaction.rollback()
    async with asyncio.timeout(2), db.engine.begin() as connection:
        await connection.execute(text("INSERT INTO gate_drop VALUES ('next')"))
    async with db.engine.connect() as connection:
        assert (await connection.execute(text("SELECT who FROM gate_drop"))).scalars().all() == ["next"]


async def test_a_writer_that_gives_up_after_being_handed_the_turn_passes_it_on():
    gate = WriteGate(timeout=5)
    first, second, third = object(), object(), object()
    await gate._enter(first)
    second_waits = asyncio.create_task(gate._enter(second))
    third_waits = asyncio.create_task(gate._enter(third))
    await asyncio.sleep(0)
    gate.transaction_ended(None)  # the pool's word for a discarded connection: nothing changes
    assert gate.holder is first
    gate.transaction_ended(first)
    assert gate.holder is second  # handed over at once ...
    second_waits.cancel()  # ... but its request is cancelled before it runs again
    with pytest.raises(asyncio.CancelledError):
        await second_waits
    await asyncio.wait_for(third_waits, 1)
    assert gate.holder is third


async def test_a_writer_that_waits_too_long_gets_a_timeout_and_loses_no_turn():
    from sqlalchemy import exc

    gate = WriteGate(timeout=0.05)
    first, late, next_one = object(), object(), object()
    await gate._enter(first)
    with pytest.raises(exc.TimeoutError, match="no turn to write"):
        await gate._enter(late)
    next_waits = asyncio.create_task(gate._enter(next_one))
    await asyncio.sleep(0)
    gate.transaction_ended(first)
    await asyncio.wait_for(next_waits, 1)
    assert gate.holder is next_one


async def test_a_released_savepoint_is_undone_by_the_enclosing_rollback(db):
    from sqlmodel import select
    from subsvc_probe import ProbeNote

    async with db.session() as session:
        async with session.begin_nested():  # the first statement of the transaction
            session.add(ProbeNote(text="inside"))
        await session.rollback()
    async with db.session() as session:
        assert (await session.exec(select(ProbeNote))).all() == []


async def test_once_after_commit_waits_for_the_outermost_commit(db):
    """A SAVEPOINT released inside the transaction is no commit: the callback runs once, at
    the real commit, and never after a rollback."""
    calls: list[str] = []
    async with db.session() as session:
        once_after_commit(session, "test.key", lambda _s: calls.append("a"))
        once_after_commit(session, "test.key", lambda _s: calls.append("again"))
        async with session.begin_nested():
            pass
        assert calls == []
        await session.commit()
    assert calls == ["a"]
    async with db.session() as session:
        once_after_commit(session, "test.other", lambda _s: calls.append("b"))
        await session.rollback()
    assert calls == ["a"]
