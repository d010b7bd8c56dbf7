"""Run the users plugin (its requirements come with it); helpers to look at rows and make users."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest

MakeUser = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["users"]


@pytest.fixture
def make_user(client: httpx2.AsyncClient) -> MakeUser:
    """``await make_user(messenger_id=1, first_name="Ann")``: POST /users, asserting 201."""

    async def create(**fields: Any) -> dict[str, Any]:
        response = await client.post("/users", json=fields)
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    return create
