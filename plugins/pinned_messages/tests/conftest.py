"""Run pinned_messages with the plugins it needs against the fake Bot API; give tests users as
rows, the administrator's and the user's clients with users 1 and 2 existing, and polling."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
from subsvc_pinned_messages.settings import PinnedMessagesSettings
from subsvc_users.models import User
from subsvc_users.testing import insert_users
from subsvc_users.testing_clients import admin_with_users, member_with_users  # noqa: F401 - fixtures

from subsvc.db import Database
from subsvc.testing import set_env, wait_until
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
    set_env(monkeypatch, {"PINNED_MESSAGES_UPKEEP_SECONDS": 0})


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
def make_user(insert_user: MakeUser) -> MakeUser:
    """``await make_user(email=..., messenger_id=None)``: the users' kit's bare committed row."""
    return insert_user


@pytest.fixture
def make_users(db: Database) -> MakeUsers:
    """``await make_users(n)``: ``n`` users with messenger ids ``FIRST_CHAT + i`` in one
    statement; their chat ids."""

    async def make(count: int, first_chat: int = FIRST_CHAT) -> list[int]:
        chats = [first_chat + n for n in range(count)]
        await insert_users(db, [{"messenger_id": chat, "username": f"u{chat}"} for chat in chats])
        return chats

    return make


@pytest.fixture
def wait_for() -> WaitFor:
    """``await wait_for(async_predicate, seconds=30)``: poll until it holds (work done after a
    response)."""
    return functools.partial(wait_until, seconds=30)


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

    await wait_until(done, seconds)
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
