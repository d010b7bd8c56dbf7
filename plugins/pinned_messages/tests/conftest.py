"""Run pinned_messages with the plugins it needs; give tests users as rows, an administrator's
and a user's cabinet client, a Web API client pointed at the fake Bot API, and polling."""

from __future__ import annotations

import asyncio
import functools
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx2
import pytest
from sqlalchemy import insert
from starlette.applications import Starlette
from subsvc_pinned_messages.settings import PinnedMessagesSettings
from subsvc_users.models import User

from subsvc.db import Database, utcnow
from subsvc.testing import ADMIN_MESSENGER_ID, USER_MESSENGER_ID, asgi_transport
from subsvc.testing_messenger import FakeBotAPI

PLUGINS = ["pinned_messages"]
WEB = "/pinned-messages"
ADMIN = "/cabinet/admin/pinned-messages"
FIRST_CHAT = 810_000_000

MakeUser = Callable[..., Awaitable[User]]
MakeUsers = Callable[..., Awaitable[list[int]]]
WaitFor = Callable[..., Awaitable[None]]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api: FakeBotAPI) -> dict[str, Any]:
    """The app's messenger client talks to the fake, without the platform's pacing."""
    return fake_bot_api.settings(MESSENGER_MESSAGES_PER_SECOND=0, MESSENGER_CHAT_INTERVAL_SECONDS=0)


@pytest.fixture(autouse=True)
def _no_periodic_upkeep(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run the upkeep themselves (``sender.upkeep``) instead of every minute."""
    monkeypatch.setenv("PINNED_MESSAGES_UPKEEP_SECONDS", "0")


@pytest.fixture
def plugin_settings(change_settings: Callable[..., None]) -> Callable[..., None]:
    """``plugin_settings(PINNED_MESSAGES_SEND_BATCH=5)``: change the plugin's settings of the
    running app for one test."""
    return functools.partial(change_settings, PinnedMessagesSettings)


@pytest.fixture
def small_batches(plugin_settings: Callable[..., None]) -> None:
    """Batches of 5 recipients, 2 at a time: a run stays under way long enough to interrupt."""
    plugin_settings(PINNED_MESSAGES_SEND_BATCH=5, PINNED_MESSAGES_SEND_CONCURRENCY=2)


@pytest.fixture
def make_user(db: Database) -> MakeUser:
    """``await make_user(email=..., messenger_id=None)``: a committed user row (a messenger id
    unless given)."""
    counter = itertools.count(1)

    async def make(**fields: Any) -> User:
        fields.setdefault("messenger_id", 800_000_000 + next(counter))
        user = User(**fields)
        async with db.session() as session:
            session.add(user)
            await session.commit()
        return user

    return make


@pytest.fixture
def make_users(db: Database) -> MakeUsers:
    """``await make_users(n)``: ``n`` active users with messenger ids ``FIRST_CHAT + i`` in one
    statement; their chat ids."""

    async def make(count: int, first_chat: int = FIRST_CHAT) -> list[int]:
        now = utcnow()
        chats = [first_chat + n for n in range(count)]
        rows = [
            {"messenger_id": chat, "username": f"u{chat}", "created_at": now, "updated_at": now}
            for chat in chats
        ]
        async with db.session() as session:
            await session.exec(insert(User.__table__), params=rows)  # type: ignore[call-overload]
            await session.commit()
        return chats

    return make


@pytest.fixture
async def admin_user(make_user: MakeUser) -> User:
    """User 1: the administrator of the ``admin_token`` fixture."""
    return await make_user(messenger_id=ADMIN_MESSENGER_ID, username="admin")


@pytest.fixture
async def member_user(admin_user: User, make_user: MakeUser) -> User:
    """User 2: the cabinet user of the ``user_token`` fixture."""
    return await make_user(messenger_id=USER_MESSENGER_ID, username="member")


def bearer_client(app: Starlette, token: str) -> httpx2.AsyncClient:
    transport = asgi_transport(app)
    return httpx2.AsyncClient(
        transport=transport, base_url="http://testserver", headers={"Authorization": f"Bearer {token}"}
    )


@pytest.fixture
async def admin(app: Starlette, admin_token: str, member_user: User) -> AsyncIterator[httpx2.AsyncClient]:
    """A client with the administrator's access JWT (users 1 and 2 exist)."""
    async with bearer_client(app, admin_token) as http:
        yield http


@pytest.fixture
async def member(app: Starlette, user_token: str, member_user: User) -> AsyncIterator[httpx2.AsyncClient]:
    """A client with an ordinary cabinet user's access JWT (user 2; no admin, no role)."""
    async with bearer_client(app, user_token) as http:
        yield http


async def _wait_for(predicate: Callable[[], Awaitable[bool]], seconds: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not await predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.02)


@pytest.fixture
def wait_for() -> WaitFor:
    """``await wait_for(async_predicate, seconds)``: poll until it holds (work done after a response)."""
    return _wait_for


async def _run_progress(http: httpx2.AsyncClient, run_id: int, base: str = WEB) -> dict[str, Any]:
    response = await http.get(f"{base}/broadcasts/{run_id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def _run_finished(
    http: httpx2.AsyncClient, run_id: int, base: str = WEB, seconds: float = 30.0
) -> dict[str, Any]:
    async def done() -> bool:
        return (await _run_progress(http, run_id, base))["status"] in ("completed", "cancelled")

    await _wait_for(done, seconds)
    return await _run_progress(http, run_id, base)


@pytest.fixture
def progress() -> Callable[..., Awaitable[dict[str, Any]]]:
    """``await progress(http, run_id, base=WEB)``: a run's progress as the API reports it."""
    return _run_progress


@pytest.fixture
def finished() -> Callable[..., Awaitable[dict[str, Any]]]:
    """``await finished(http, run_id, base=WEB, seconds=30)``: poll until the run is completed
    or cancelled; its progress."""
    return _run_finished
