"""PostgreSQL refusing a connection for want of slots ("too many clients already", SQLSTATE
53300) makes requests wait and try again within DATABASE_TIMEOUT, not answer 503 at once.

The server's own limit cannot be lowered under a running suite, so a role of our own with
``CONNECTION LIMIT 2`` stands for it: its refusals ("too many connections for role") carry
the same SQLSTATE."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import httpx2
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from subsvc.app import create_app
from subsvc.db import Database
from subsvc.settings import Settings
from subsvc.testing import API_KEY

LIMIT = 2


@pytest.fixture
def postgresql_url(subsvc_database_url: str) -> str:
    if make_url(subsvc_database_url).get_backend_name() != "postgresql":
        pytest.skip("PostgreSQL's connection limits")
    return subsvc_database_url


@pytest.fixture
async def limited_url(postgresql_url: str, app) -> AsyncIterator[str]:
    """The test database as a role of its own that may hold ``LIMIT`` connections (``app`` has
    migrated the tables, so that they can be granted)."""
    url = make_url(postgresql_url)
    role = f"{url.database}_limited"  # one per pytest-xdist worker: each has its own database
    admin = create_async_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    statements = [
        f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}')"
        f' THEN CREATE ROLE "{role}"; END IF; END $$',
        f"ALTER ROLE \"{role}\" LOGIN PASSWORD 'limited' CONNECTION LIMIT {LIMIT}",
        f'GRANT USAGE ON SCHEMA public TO "{role}"',
        f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "{role}"',
        f'GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO "{role}"',
    ]
    async with admin.connect() as connection:
        for statement in statements:
            await connection.execute(text(statement))
    try:
        yield url.set(username=role, password="limited").render_as_string(hide_password=False)
    finally:
        async with admin.connect() as connection:
            await connection.execute(
                text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = :role"),
                {"role": role},
            )
            await connection.execute(text(f'DROP OWNED BY "{role}"'))
            await connection.execute(text(f'DROP ROLE "{role}"'))
        await admin.dispose()


@asynccontextmanager
async def serving(settings: Settings) -> AsyncIterator[tuple[httpx2.AsyncClient, Database]]:
    """The probe app on ``settings``, started, and a client whose API key it has checked."""
    service = create_app(settings, plugins=["subsvc_probe"])
    try:
        async with service.router.lifespan_context(service):
            transport = httpx2.ASGITransport(app=service)
            async with httpx2.AsyncClient(
                transport=transport, base_url="http://t", headers={"X-API-Key": API_KEY}
            ) as http:
                assert (await http.get("/probe/notes")).status_code == 200  # the key is remembered now
                yield http, service.state.db
    finally:
        await service.state.db.dispose()


@asynccontextmanager
async def every_slot_taken(url: str) -> AsyncIterator[None]:
    """Another instance's connections as the role, until the server refuses one."""
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    others = []
    try:
        for _ in range(LIMIT + 1):
            try:
                others.append(await asyncpg.connect(dsn))
            except asyncpg.TooManyConnectionsError:
                break
        else:
            raise AssertionError(f"the role's CONNECTION LIMIT {LIMIT} did not refuse")
        yield
    finally:
        for connection in others:
            await connection.close()


def limited(settings: Settings, url: str, timeout: float) -> Settings:
    # a pool larger than the role's limit: the service tries to open what the server refuses
    update = {"DATABASE_URL": url, "DATABASE_POOL_SIZE": LIMIT + 2, "DATABASE_TIMEOUT": timeout}
    return settings.model_copy(update={**update, "DATABASE_MAX_OVERFLOW": 0})


async def test_requests_wait_while_the_server_refuses_connections(subsvc_settings, limited_url, wait_for):
    # a timeout never reached: the slots are given back as soon as a refusal is seen
    async with serving(limited(subsvc_settings, limited_url, 60.0)) as (http, db):
        async with every_slot_taken(limited_url):
            requests = [asyncio.create_task(http.get("/probe/notes")) for _ in range(10)]
            await wait_for(lambda: db.pool_status()["refused"] >= 1)
        answers = await asyncio.gather(*requests)
        figures = db.pool_status()
    assert [r.status_code for r in answers] == [200] * 10  # none answered 503
    assert figures["timeouts"] == 0


async def test_a_refusal_lasting_past_the_timeout_is_503(subsvc_settings, limited_url, wait_for):
    async with serving(limited(subsvc_settings, limited_url, 0.3)) as (http, db):
        release, holders = asyncio.Event(), []
        held: list[object] = []

        async def hold_a_connection() -> None:
            async with db.engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
                held.append(connection)
                await release.wait()

        def every_open_connection_held() -> bool:  # none idle, none that background work gives back
            figures = db.pool_status()
            if figures["checkedin"] and len(holders) == len(held):
                holders.append(asyncio.create_task(hold_a_connection()))
            return figures["checkedin"] == 0 and figures["checkedout"] == len(held) == len(holders)

        await wait_for(every_open_connection_held)
        async with every_slot_taken(limited_url):
            r = await http.get("/probe/notes")
        release.set()
        await asyncio.gather(*holders)
        figures = db.pool_status()
        assert (r.status_code, figures["refused"] >= 1, figures["timeouts"] >= 1) == (503, True, True)
        assert (await http.get("/probe/notes")).status_code == 200  # slots again: served
