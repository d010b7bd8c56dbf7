"""Runtime settings stored in the database (`subsvc.stored_settings`), on a key/value table of
the test's own: one row per key however often it is written, the configuration cached per
instance until a change commits there or another instance says so on the bus, a read begun
before a change never kept after it, concurrent first writes of a key both landing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.app import create_app
from subsvc.db import Database, UTCDateTime
from subsvc.services import services
from subsvc.stored_settings import StoredSettings, write_row

METADATA = sa.MetaData()
TABLE = sa.Table(
    "stored_settings_probe",
    METADATA,
    sa.Column("key", sa.String(32), primary_key=True),
    sa.Column("value", sa.JSON),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)


class Probe:
    """What the loads saw, and a gate a load may be held at after reading."""

    def __init__(self) -> None:
        self.seconds = 60.0
        self.loads = 0
        self.gate: asyncio.Event | None = None
        self.read_done = asyncio.Event()

    async def load(self, _app: Starlette, session: AsyncSession) -> dict[str, Any]:
        rows = await session.exec(sa.select(TABLE.c.key, TABLE.c.value))
        values = {key: value for key, value in rows.all()}
        self.loads += 1
        if self.gate is not None:
            self.read_done.set()
            await self.gate.wait()
        return values


@pytest.fixture
async def probe(db: Database) -> AsyncIterator[Probe]:
    """The table ``stored_settings_probe`` (dropped after the test) and a fresh :class:`Probe`."""
    async with db.engine.begin() as connection:
        await connection.run_sync(METADATA.drop_all)
        await connection.run_sync(METADATA.create_all)
    yield Probe()
    async with db.engine.begin() as connection:
        await connection.run_sync(METADATA.drop_all)


def settings_of(probe: Probe) -> StoredSettings[dict[str, Any]]:
    return StoredSettings("probe.settings", probe.load, lambda _app: probe.seconds)


async def stored_rows(db: Database) -> list[tuple[Any, ...]]:
    async with db.engine.connect() as connection:
        result = await connection.execute(sa.select(TABLE.c.key, TABLE.c.value).order_by(TABLE.c.key))
        return [tuple(row) for row in result]


async def test_a_key_is_one_row_however_often_it_is_written(db, probe):
    async with db.session() as session:
        await write_row(session, TABLE, {"key": "a"}, {"value": 1})
        await write_row(session, TABLE, {"key": "b"}, {"value": "x"})
        await session.commit()
    async with db.session() as session:
        await write_row(session, TABLE, {"key": "a"}, {"value": 2})
        await session.commit()
    assert await stored_rows(db) == [("a", 2), ("b", "x")]


async def test_the_cache_answers_until_a_change_commits(app, db, probe):
    config = settings_of(probe)
    assert await config.get(app) == {}
    async with db.session() as session:  # written without telling anyone: not seen
        await write_row(session, TABLE, {"key": "a"}, {"value": 1})
        await session.commit()
    assert await config.get(app) == {}
    assert probe.loads == 1
    async with db.session() as session:
        assert await config.write(app, session, TABLE, {"key": "b"}, {"value": 2}) == {"a": 1, "b": 2}
        await session.rollback()
    assert await config.get(app) == {"a": 1}  # dropped at once, though rolled back
    async with db.session() as session:
        await config.write(app, session, TABLE, {"key": "b"}, {"value": 3})
        await session.commit()
    assert await config.get(app) == {"a": 1, "b": 3}


async def test_with_no_cache_time_every_use_reads(app, db, probe):
    probe.seconds = 0
    config = settings_of(probe)
    await config.get(app)
    await config.get(app)
    assert probe.loads == 2


async def test_a_read_begun_before_a_change_is_not_kept_after_it(app, db, probe):
    config = settings_of(probe)
    gate = probe.gate = asyncio.Event()
    early = asyncio.create_task(config.get(app))
    await probe.read_done.wait()  # it has read the table and waits at the gate
    probe.gate = None
    async with db.session() as session:
        await config.write(app, session, TABLE, {"key": "a"}, {"value": 1})
        await session.commit()
    assert await config.get(app) == {"a": 1}
    gate.set()
    assert await early == {}  # the early read answers what it saw...
    loads = probe.loads
    assert await config.get(app) == {"a": 1}  # ...but is not kept over the later one
    assert probe.loads == loads


async def test_two_instances_drop_each_others_cache_through_redis(
    redis_url, subsvc_settings, app, probe, wait_for
):
    settings = subsvc_settings.model_copy(update={"REDIS_URL": redis_url})
    one, two = (create_app(settings, plugins=["subsvc_probe"]) for _ in range(2))
    config = settings_of(probe)
    async with AsyncExitStack() as stack:
        for instance in (one, two):
            await stack.enter_async_context(instance.router.lifespan_context(instance))
            config.start(instance)
        assert await config.get(two) == {}  # cached on instance two
        async with services(one).db.session() as session:
            await config.write(one, session, TABLE, {"key": "a"}, {"value": 1})
            await session.commit()
        assert await config.get(one) == {"a": 1}

        async def seen() -> bool:
            return await config.get(two) == {"a": 1}

        await wait_for(seen)
        await config.stop(one)


async def test_concurrent_first_writes_of_one_key_both_succeed(db, probe, wait_for):
    """The second insert waits for the first transaction, fails on its key, and updates."""
    if db.dialect != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite runs one writer at a time, so this race cannot happen there")
    async with db.session() as first, db.session() as second:
        await write_row(first, TABLE, {"key": "a"}, {"value": 1})
        racing = asyncio.create_task(write_row(second, TABLE, {"key": "a"}, {"value": 2}))

        async def waiting_for_a_lock() -> bool:
            async with db.engine.connect() as connection:
                query = (
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE wait_event_type = 'Lock' AND datname = current_database()"
                )
                return bool((await connection.execute(sa.text(query))).scalar())

        await wait_for(waiting_for_a_lock)  # the second insert waits for the first transaction
        await first.commit()
        await racing
        await second.commit()
    assert await stored_rows(db) == [("a", 2)]
