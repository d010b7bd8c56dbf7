"""The connection pool under more requests than connections: requests wait their turn for
one of the pool's connections (no connection above its size), and a session opened inside
another does not wait for a connection its own task holds."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import event, text

POOL = 2


@pytest.fixture
def subsvc_settings_overrides() -> dict[str, Any]:
    # a generous timeout: a request must never fail for the machine being slow
    return {"DATABASE_POOL_SIZE": POOL, "DATABASE_MAX_OVERFLOW": 0, "DATABASE_TIMEOUT": 60}


async def test_twenty_requests_share_a_pool_of_two_by_waiting_their_turn(app, db, client, wait_for):
    assert (await client.get("/probe/notes")).status_code == 200  # the API key is remembered now
    release = asyncio.Event()
    held = 0

    async def hold_a_connection() -> None:
        nonlocal held
        async with db.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
            held += 1
            await release.wait()

    holders = [asyncio.create_task(hold_a_connection()) for _ in range(POOL)]  # the whole pool
    await wait_for(lambda: held == POOL)
    opened: list[object] = []

    def connected(dbapi_connection: object, _record: object) -> None:
        opened.append(dbapi_connection)

    event.listen(db.engine.sync_engine.pool, "connect", connected)
    writes = [client.post("/probe/notes", json={"text": f"note {n}", "amount": n}) for n in range(10)]
    reads = [client.get("/probe/notes") for _ in range(10)]
    requests = [asyncio.create_task(request) for pair in zip(writes, reads, strict=True) for request in pair]
    await wait_for(lambda: db.pool_status()["waiting"] >= 20)
    assert not any(request.done() for request in requests)  # none failed: all wait in line
    release.set()
    await asyncio.gather(*holders)
    answers = await asyncio.gather(*requests)
    assert [r.status_code for r in answers] == [201, 200] * 10
    assert len((await client.get("/probe/notes")).json()) == 10
    figures = db.pool_status()
    assert opened == []  # no connection above the pool's two
    assert (figures["size"], figures["max_overflow"]) == (POOL, 0)
    assert (figures["timeouts"], figures["nested"]) == (0, 0)
    assert figures["waits"] >= 20


async def test_a_session_inside_another_takes_a_connection_beyond_a_busy_pool(app, db):
    """Two tasks each hold one of the pool's two connections and then open a second session:
    waiting in line, each would wait for the other forever (until the timeout)."""
    both_hold = asyncio.Barrier(POOL)

    async def session_in_a_session() -> int:
        async with db.session() as outer:
            await outer.exec(text("SELECT 1"))
            await both_hold.wait()
            async with db.session() as inner:
                return int((await inner.exec(text("SELECT 2"))).scalar_one())

    assert await asyncio.gather(*(session_in_a_session() for _ in range(POOL))) == [2] * POOL
    figures = db.pool_status()
    assert (figures["nested"], figures["timeouts"]) == (POOL, 0)
    assert figures["overflow"] <= 0  # the connections above the pool were closed when given back
