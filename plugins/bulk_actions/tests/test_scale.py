"""Done when: a bulk action on 10,000 users completes with progress events, and is resumable
after a restart. The first app instance is stopped in the middle of the run; a second one on
the same database resumes it; every user was credited exactly once."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import pytest
import sqlalchemy as sa
from starlette.applications import Starlette
from subsvc_users.testing import insert_users

from subsvc.app import create_app
from subsvc.testing import ADMIN_MESSENGER_ID, asgi_transport, ensure_migrated, running

from .conftest import EXECUTE, sse_events

USERS = 10_000
AMOUNT = 700


@pytest.fixture
def bulk_env() -> dict[str, Any]:
    return {"BULK_ACTIONS_BATCH_SIZE": 250, "BULK_ACTIONS_UPKEEP_SECONDS": 30}


async def test_ten_thousand_users_stream_their_progress(admin, users, outbox, db):
    ids = await users(USERS)
    response = await admin.post(
        EXECUTE,
        params={"stream": "true"},
        json={"action": "add_balance", "user_ids": ids, "params": {"amount_kopeks": AMOUNT}},
        timeout=600,
    )
    assert response.status_code == 200
    events = sse_events(response.text)
    assert len(events) == USERS + 1
    assert [e["current"] for e in events[:-1]] == list(range(1, USERS + 1))
    assert all(e["success"] for e in events[:-1])
    assert events[-1]["success_count"] == USERS and events[-1]["type"] == "complete"
    progress = [p for kind, p in await outbox() if kind == "bulk.progress"]
    assert len(progress) == 1 + USERS // 250  # at the start, then after each batch
    assert [p["done"] for p in progress] == list(range(0, USERS + 1, 250))
    assert await _balances(db.engine) == {AMOUNT: USERS}


async def _balances(engine: Any) -> dict[int, int]:
    async with engine.connect() as connection:
        query = sa.text("SELECT balance_kopeks, COUNT(*) FROM users GROUP BY balance_kopeks")
        return dict((await connection.execute(query)).all())


async def _run_state(app: Starlette) -> Any:
    async with app.state.db.session() as session:
        query = sa.text("SELECT status, success_count, lease_owner FROM bulk_runs")
        return (await session.exec(query)).first()  # type: ignore[call-overload]


async def test_a_restart_in_the_middle_applies_every_item_once(subsvc_settings, subsvc_plugins, wait_for):
    first = create_app(subsvc_settings, plugins=subsvc_plugins)
    await ensure_migrated(subsvc_settings.DATABASE_URL, first.state.migration_dirs)
    token = first.state.jwt.access_token(1, messenger_id=ADMIN_MESSENGER_ID)
    body = {"action": "add_balance", "user_ids": [], "params": {"amount_kopeks": AMOUNT}}
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "restart-1"}
    async with first.router.lifespan_context(first):
        body["user_ids"] = await insert_users(
            first.state.db, [{"messenger_id": 800_000_000 + i} for i in range(USERS)]
        )
        http = httpx2.AsyncClient(transport=asgi_transport(first), base_url="http://t", headers=headers)
        waiting = asyncio.create_task(http.post(EXECUTE, json=body, timeout=600))
        await wait_for(lambda: waiting.done() or _past(first, 1_000), seconds=120)
        assert not waiting.done(), waiting.result().text
    # the first instance is gone: what it applied is recorded, its lease given back
    stopped = await waiting
    await http.aclose()
    assert stopped.status_code == 503
    status, applied, owner = await _read_after(subsvc_settings, subsvc_plugins)
    assert status == "running" and owner is None and 1_000 <= applied < USERS

    second = create_app(subsvc_settings, plugins=subsvc_plugins)
    async with running(second):
        async with httpx2.AsyncClient(
            transport=asgi_transport(second), base_url="http://t", headers=headers
        ) as again:
            response = await again.post(EXECUTE, json=body, timeout=600)
        assert response.status_code == 200, response.text
        answer = response.json()
        assert (answer["total"], answer["success_count"], answer["error_count"]) == (USERS, USERS, 0)
        assert await _balances(second.state.db.engine) == {AMOUNT: USERS}
        async with second.state.db.engine.connect() as connection:
            deposits = sa.text("SELECT COUNT(*), COUNT(DISTINCT user_id) FROM transactions")
            assert (await connection.execute(deposits)).one() == (USERS, USERS)


async def _past(app: Starlette, count: int) -> bool:
    state = await _run_state(app)
    return state is not None and state.success_count >= count


async def _read_after(settings: Any, plugins: Any) -> Any:
    """The run's row through a fresh app's database (not started: nothing applies)."""
    reader = create_app(settings, plugins=plugins)
    try:
        return await _run_state(reader)
    finally:
        await reader.state.db.dispose()
