"""Run promocodes with the plugins it needs; give tests administrators' and users' clients,
users, subscriptions and codes made through the API, and a look at rows and the outbox."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from itertools import count
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from subsvc.testing import bearer_client

PLUGINS = ["promocodes"]
ADMIN = "/cabinet/admin/promocodes"
WEB = "/promo-codes"
ACTIVATE = "/cabinet/promocode/activate"
DEACTIVATE = "/cabinet/promocode/deactivate-discount"

Make = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


@pytest.fixture
def cabinet(app: Starlette) -> Callable[[int], httpx2.AsyncClient]:
    """``async with cabinet(user_id) as http``: a client carrying that user's access JWT."""

    def make(user_id: int) -> httpx2.AsyncClient:
        return bearer_client(app, app.state.jwt.access_token(user_id))

    return make


@pytest.fixture
def make_user(client: httpx2.AsyncClient) -> Make:
    """``await make_user(first_name="Ann")``: a user made through `POST /users`; its record."""
    numbers = count(1)

    async def make(**fields: Any) -> dict[str, Any]:
        fields.setdefault("messenger_id", 720_000_000 + next(numbers))
        response = await client.post("/users", json=fields)
        assert response.status_code == 201, response.text
        return dict(response.json())

    return make


@pytest.fixture
def make_code(admin: httpx2.AsyncClient) -> Make:
    """``await make_code(code="BONUS", type="balance", balance_bonus_kopeks=500)``: a code made
    through the cabinet admin API (201); its record."""
    numbers = count(1)

    async def make(**fields: Any) -> dict[str, Any]:
        fields.setdefault("code", f"CODE{next(numbers)}")
        fields.setdefault("type", "balance")
        if fields["type"] == "balance":
            fields.setdefault("balance_bonus_kopeks", 10_000)
        response = await admin.post(ADMIN, json=fields)
        assert response.status_code == 201, response.text
        return dict(response.json())

    return make


@pytest.fixture
def make_subscription(client: httpx2.AsyncClient) -> Make:
    """``await make_subscription(user_id, duration_days=30)``: `POST /subscriptions` (201)."""

    async def make(user_id: int, **fields: Any) -> dict[str, Any]:
        fields.setdefault("duration_days", 30)
        response = await client.post("/subscriptions", json={"user_id": user_id, **fields})
        assert response.status_code == 201, response.text
        return dict(response.json())

    return make
