"""Run tickets (and what it requires) against the fake Bot API, with users 1 (administrator)
and 2 (member) existing for the ``admin`` and ``member`` clients."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from subsvc_users.testing_clients import admin_with_users, member_with_users  # noqa: F401 - fixtures

from subsvc.testing_messenger import FakeBotAPI


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["tickets"]


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api: FakeBotAPI) -> dict[str, Any]:
    return fake_bot_api.settings(MESSENGER_MESSAGES_PER_SECOND=0, MESSENGER_CHAT_INTERVAL_SECONDS=0)


NEW_TICKET = {"title": "VPN is down", "message": "Nothing connects since this morning"}


async def open_ticket(http: httpx2.AsyncClient, **fields: Any) -> dict[str, Any]:
    """``POST /cabinet/tickets`` as ``http`` (a valid ticket unless fields say otherwise), asserting 200."""
    response = await http.post("/cabinet/tickets", json={**NEW_TICKET, **fields})
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def detail(response: httpx2.Response, status: int = 200) -> Any:
    """The body of ``response`` after checking its status (``detail`` of an error answer)."""
    assert response.status_code == status, response.text
    body = response.json()
    return body["detail"] if status >= 400 else body
