"""Run broadcasts with the plugins it needs, against the loopback fake Bot API; give tests
users (bulk rows), an administrator's client with user 1 existing, and ways to wait for the
background sender (``member`` and ``base``: core's kit)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx2
import pytest
import sqlalchemy as sa
from starlette.applications import Starlette
from subsvc_broadcasts.models import Broadcast
from subsvc_users.testing import insert_users

from subsvc.db import Database
from subsvc.testing import ADMIN_MESSENGER_ID, bearer_client, set_env
from subsvc.testing_messenger import FakeBotAPI

PLUGINS = ["broadcasts"]
FIRST_CHAT = 500_000_000
FAST = {
    "MESSENGER_MESSAGES_PER_SECOND": 0,
    "MESSENGER_CHAT_INTERVAL_SECONDS": 0,
    "BROADCASTS_UPKEEP_SECONDS": 0,
    "SEGMENTS_REACHABILITY_FLUSH_SECONDS": 0.05,
}


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


@pytest.fixture
def broadcast_env() -> dict[str, Any]:
    """Plugin settings of a test module (override it), on top of :data:`FAST`."""
    return {}


@pytest.fixture(autouse=True)
def _fast_env(monkeypatch: pytest.MonkeyPatch, broadcast_env: dict[str, Any]) -> None:
    """Plugin settings come from the environment: no periodic upkeep (tests run it), quick writes."""
    set_env(monkeypatch, {**FAST, **broadcast_env})


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api: FakeBotAPI) -> dict[str, Any]:
    return fake_bot_api.settings(MESSENGER_MESSAGES_PER_SECOND=0, MESSENGER_CHAT_INTERVAL_SECONDS=0)


async def seed_users(db: Database, count: int, *, first_chat: int = FIRST_CHAT, **extra: Any) -> list[int]:
    """``count`` active messenger users in one bulk INSERT; their ids."""
    return await insert_users(db, [{"messenger_id": first_chat + i, **extra} for i in range(count)])


@pytest.fixture
def users(db: Database) -> Callable[..., Awaitable[list[int]]]:
    async def make(count: int, **extra: Any) -> list[int]:
        return await seed_users(db, count, **extra)

    return make


async def read_broadcast(db: Database, broadcast_id: int) -> Broadcast:
    async with db.session() as session:
        broadcast = await session.get(Broadcast, broadcast_id)
        assert broadcast is not None
        return broadcast


async def wait_until_finished(db: Database, broadcast_id: int, seconds: float = 25.0) -> Broadcast:
    """Poll until the broadcast is completed or cancelled."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        broadcast = await read_broadcast(db, broadcast_id)
        if broadcast.status in ("completed", "cancelled"):
            return broadcast
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"broadcast {broadcast_id} still {broadcast.status}")
        await asyncio.sleep(0.05)


@pytest.fixture
async def admin(app: Starlette, db: Database, admin_token: str) -> AsyncIterator[httpx2.AsyncClient]:
    """A client with the administrator's access JWT (user 1, named ``boss``, exists)."""
    await seed_users(db, 1, first_chat=ADMIN_MESSENGER_ID, username="boss")
    async with bearer_client(app, admin_token) as http:
        yield http


@pytest.fixture
def finished(db: Database) -> Callable[..., Awaitable[Broadcast]]:
    """``await finished(broadcast_id)``: the broadcast once completed or cancelled."""

    async def wait(broadcast_id: int, seconds: float = 25.0) -> Broadcast:
        return await wait_until_finished(db, broadcast_id, seconds)

    return wait


@pytest.fixture
def broadcast_row(db: Database) -> Callable[[int], Awaitable[Broadcast]]:
    """``await broadcast_row(id)``: the broadcast as committed now."""

    async def read(broadcast_id: int) -> Broadcast:
        return await read_broadcast(db, broadcast_id)

    return read


@pytest.fixture
def users_seeder() -> Callable[..., Awaitable[list[int]]]:
    """``await users_seeder(app, count)``: seed users through another app's database (for tests
    that start their own app instances); statistics refreshed on PostgreSQL."""

    async def seed(app: Starlette, count: int) -> list[int]:
        db: Database = app.state.db
        ids = await seed_users(db, count)
        if db.dialect == "postgresql":
            async with db.session() as session:
                await session.exec(sa.text("ANALYZE users"))  # type: ignore[call-overload]
                await session.commit()
        return ids

    return seed


@pytest.fixture
def finished_in() -> Callable[..., Awaitable[Broadcast]]:
    """``await finished_in(app, broadcast_id)``: wait on another app instance's database."""

    async def wait(app: Starlette, broadcast_id: int, seconds: float = 25.0) -> Broadcast:
        return await wait_until_finished(app.state.db, broadcast_id, seconds)

    return wait
