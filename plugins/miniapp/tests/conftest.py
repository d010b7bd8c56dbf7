"""Run miniapp with the plugins it maps onto; sign init data as the messenger does (HMAC-SHA256
keyed with HMAC-SHA256("WebAppData", bot token), over the sorted ``key=value`` lines)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

import httpx2
import pytest

from subsvc.testing import marked_env

BOT_TOKEN = "424242:miniapp-test-bot-token"


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["miniapp"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "no_bot_token: the app has no BOT_TOKEN")
    config.addinivalue_line("markers", "miniapp_env(**values): more of the environment of the test's app")


@pytest.fixture
def subsvc_settings_overrides(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    marked_env(request, monkeypatch, "miniapp_env", {})
    return {"BOT_TOKEN": None if request.node.get_closest_marker("no_bot_token") else BOT_TOKEN}


def init_data(messenger_id: int | None, *, age: int = 0, token: str = BOT_TOKEN, **user: Any) -> str:
    """Init data for this messenger user, signed ``age`` seconds ago with ``token``."""
    fields = {"auth_date": str(int(time.time()) - age), "query_id": "AAHdF6IQAAAAAN0XohDhrOrc"}
    if messenger_id is not None:
        fields["user"] = json.dumps({"id": messenger_id, "first_name": "Mia", **user}, separators=(",", ":"))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


@pytest.fixture
def signed() -> Callable[..., str]:
    """``signed(messenger_id, age=0, token=BOT_TOKEN, **user)``: init data as the messenger signs it."""
    return init_data


Post = Callable[..., Awaitable[httpx2.Response]]


@pytest.fixture
def miniapp(anon_client: Any) -> Post:
    """``await miniapp("/subscription", user, code="X")``: POST ``/miniapp<path>`` with fresh
    init data of ``user`` (a user row, or init data text as it is) and the other fields."""

    async def post(path: str, user: Any, *, key: str = "initData", **fields: Any) -> httpx2.Response:
        data = user if isinstance(user, str) else init_data(user.messenger_id)
        return await anon_client.post(f"/miniapp{path}", json={key: data, **fields})

    return post
