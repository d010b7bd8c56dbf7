"""Run promo groups with the users plugin (whose users are the groups' members); helpers to
look at rows and to make groups and users through the API."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest

Make = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["promo_groups", "users"]


@pytest.fixture
def make_group(client: httpx2.AsyncClient) -> Make:
    """``await make_group(name="VIP", server_discount_percent=10)``: POST /promo-groups (201)."""

    async def create(**fields: Any) -> dict[str, Any]:
        response = await client.post("/promo-groups", json=fields)
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    return create


@pytest.fixture
def make_user(client: httpx2.AsyncClient) -> Make:
    """``await make_user(promo_group_id=2)``: POST /users (201)."""

    async def create(**fields: Any) -> dict[str, Any]:
        response = await client.post("/users", json=fields)
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    return create
