"""Run the referrals plugin with what it builds on (payments' fixtures pay and credit)."""

from __future__ import annotations

from typing import Any

import pytest

from subsvc.testing_messenger import FakeBotAPI


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["referrals"]


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api: FakeBotAPI) -> dict[str, Any]:
    """The app's messenger is the loopback fake Bot API."""
    return fake_bot_api.settings(MESSENGER_MESSAGES_PER_SECOND=0, MESSENGER_CHAT_INTERVAL_SECONDS=0)
