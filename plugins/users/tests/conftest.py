"""Run the users plugin with the promo groups it needs; helpers to look at rows and make users."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

import httpx2
import pytest

MakeUser = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["subsvc_promo_groups.plugin", "subsvc_users.plugin"]


@pytest.fixture
def make_user(client: httpx2.AsyncClient) -> MakeUser:
    """``await make_user(messenger_id=1, first_name="Ann")``: POST /users, asserting 201."""

    async def create(**fields: Any) -> dict[str, Any]:
        response = await client.post("/users", json=fields)
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    return create


def _utc_time(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    offset = parsed.utcoffset()
    assert offset is not None and offset.total_seconds() == 0, f"not UTC with an offset: {value}"
    return parsed


@pytest.fixture
def utc_time() -> Callable[[str], datetime]:
    """Parse a response's ISO 8601 timestamp, asserting it is timezone-aware UTC."""
    return _utc_time
