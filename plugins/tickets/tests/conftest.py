"""Run tickets (and what it requires) against the fake Bot API, with users 1 (administrator)
and 2 (member) existing for the ``admin`` and ``member`` clients."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_users.testing_clients import admin_with_users, member_with_users  # noqa: F401 - fixtures

from subsvc.testing_messenger import FakeBotAPI


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["tickets"]


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api: FakeBotAPI) -> dict[str, Any]:
    return fake_bot_api.settings(MESSENGER_MESSAGES_PER_SECOND=0, MESSENGER_CHAT_INTERVAL_SECONDS=0)
