"""Run pay_stars (payments and what it requires come along) with Stars enabled in the
environment and the app's messenger at core's loopback fake Bot API (no retries: a failing
call fails at once). The payment kit works on ``messenger_stars``; ``http`` is the cabinet
client of ``user``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from subsvc_pay_stars.testing import StarsFake

from subsvc.testing_messenger import FakeBotAPI


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["pay_stars"]


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api: FakeBotAPI, stars_env: dict[str, str]) -> dict[str, Any]:
    return fake_bot_api.settings(MESSENGER_MAX_RETRIES=0)


@pytest.fixture
def payment_provider() -> str:
    return "messenger_stars"


@pytest.fixture
def provider_fake(stars_fake: StarsFake) -> StarsFake:
    return stars_fake


@pytest.fixture
async def user(insert_user: Any) -> Any:
    return await insert_user()


@pytest.fixture
async def http(cabinet: Any, user: Any) -> AsyncIterator[httpx2.AsyncClient]:
    async with cabinet(user.id) as client:
        yield client
