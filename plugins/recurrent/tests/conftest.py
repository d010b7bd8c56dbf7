"""Run the recurrent plugin with Platega's provider plugin pointed at its loopback fake
(``@pytest.mark.platega_env(PLATEGA_SECRET="")`` leaves Platega unconfigured); users and
subscriptions are made through the Web API."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

MakeUser = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["recurrent", "pay_platega"]


@pytest.fixture
def subsvc_settings_overrides(platega_env: dict[str, str]) -> dict[str, Any]:
    return {}


@pytest.fixture
def make_user(api_user: MakeUser) -> MakeUser:
    """``await make_user()``: a user created through `POST /users`; its record."""
    return api_user


@pytest.fixture
def subscribe(client: Any) -> Callable[..., Awaitable[int]]:
    """``await subscribe(user_id, **body)``: a paid subscription made through the Web API; its id."""

    async def make(user_id: int, **body: Any) -> int:
        body.setdefault("period_days", 30)
        response = await client.post(f"/users/{user_id}/subscription", json=body)
        assert response.status_code == 201, response.text
        return int(response.json()["subscription"]["id"])

    return make
