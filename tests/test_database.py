"""The data layer: migrations from empty, UTC datetimes, 503 while the database is down."""

from __future__ import annotations

import asyncio
import shutil
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import httpx2
import pytest
from sqlalchemy import inspect
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool
from tcp_proxy import TCPProxy

from subsvc.app import create_app
from subsvc.db import migrate
from subsvc.testing import API_KEY


async def table_names(url: str) -> set[str]:
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
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
    assert {"web_api_tokens", "probe_notes", "alembic_version"} <= await table_names(empty_url)
    assert sorted(await asyncio.to_thread(migrate.heads, empty_url, dirs)) == ["core_0001", "probe_0001"]
    await asyncio.to_thread(migrate.upgrade, empty_url, dirs)  # idempotent
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


class Outage:
    """Takes the test database away and brings it back, the way it fails for real."""

    def __init__(self, url: str, tmp_path: Path) -> None:
        self.original = make_url(url)
        self.proxy: TCPProxy | None = None
        self.moved: tuple[Path, Path] | None = None
        self.tmp_path = tmp_path

    async def url(self) -> str:
        if self.original.get_backend_name() == "sqlite":
            folder = self.tmp_path / "live"
            folder.mkdir()
            shutil.copy(self.original.database, folder / "db.sqlite")
            self.moved = (folder, self.tmp_path / "gone")
            return f"sqlite+aiosqlite:///{folder}/db.sqlite"
        self.proxy = TCPProxy(self.original.host or "127.0.0.1", self.original.port or 5432)
        await self.proxy.start()
        return self.original.set(host="127.0.0.1", port=self.proxy.port).render_as_string(hide_password=False)

    async def down(self) -> None:
        if self.proxy is not None:
            await self.proxy.stop()
        else:
            self.moved[0].rename(self.moved[1])

    async def up(self) -> None:
        if self.proxy is not None:
            await self.proxy.start()
        else:
            self.moved[1].rename(self.moved[0])


async def test_database_down_is_503_and_the_server_recovers_by_itself(subsvc_settings, app, tmp_path):
    outage = Outage(subsvc_settings.DATABASE_URL, tmp_path)
    settings = subsvc_settings.model_copy(
        update={"DATABASE_URL": await outage.url(), "DATABASE_TIMEOUT": 1.0}
    )
    service = create_app(settings, plugins=["subsvc_probe"])
    async with service.router.lifespan_context(service):
        transport = httpx2.ASGITransport(app=service)
        async with httpx2.AsyncClient(
            transport=transport, base_url="http://t", headers={"X-API-Key": API_KEY}
        ) as http:
            assert (await http.get("/probe/notes")).status_code == 200
            await outage.down()
            r = await http.get("/probe/notes")
            assert (r.status_code, r.json()) == (
                503,
                {"detail": "Service temporarily unavailable. Please try again later."},
            )
            r = await http.get("/health/database")
            assert r.status_code == 503 and r.json()["detail"]["status"] == "unavailable"
            assert (await http.get("/health")).status_code == 200  # liveness does not need the database
            await outage.up()
            assert (await http.get("/probe/notes")).status_code == 200
            assert (await http.get("/health/database")).json()["status"] == "ok"
