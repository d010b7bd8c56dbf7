"""Run promocodes with the plugins it needs; give tests administrators' and users' clients,
users, subscriptions and codes made through the API, and a look at rows and the outbox."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from itertools import count
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from subsvc.db import Database
from subsvc.events import OutboxEvent
from subsvc.testing import Rows

PLUGINS = [
    "subsvc_promo_groups.plugin",
    "subsvc_users.plugin",
    "subsvc_billing.plugin",
    "subsvc_subscriptions.plugin",
    "subsvc_promocodes.plugin",
]
ADMIN = "/cabinet/admin/promocodes"
WEB = "/promo-codes"
ACTIVATE = "/cabinet/promocode/activate"
DEACTIVATE = "/cabinet/promocode/deactivate-discount"

Make = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


def bearer(app: Starlette, token: str) -> httpx2.AsyncClient:
    transport = httpx2.ASGITransport(app=app, client=("127.0.0.1", 50000))
    return httpx2.AsyncClient(
        transport=transport, base_url="http://testserver", headers={"Authorization": f"Bearer {token}"}
    )


@pytest.fixture
async def admin(app: Starlette, admin_token: str) -> AsyncIterator[httpx2.AsyncClient]:
    """A client with the access JWT of an administrator (``ADMIN_IDS``; user id 1)."""
    async with bearer(app, admin_token) as http:
        yield http


@pytest.fixture
async def member(app: Starlette, user_token: str) -> AsyncIterator[httpx2.AsyncClient]:
    """A client with an ordinary cabinet user's access JWT (user id 2: no admin, no role)."""
    async with bearer(app, user_token) as http:
        yield http


@pytest.fixture
def cabinet(app: Starlette) -> Callable[[int], httpx2.AsyncClient]:
    """``async with cabinet(user_id) as http``: a client carrying that user's access JWT."""

    def make(user_id: int) -> httpx2.AsyncClient:
        return bearer(app, app.state.jwt.access_token(user_id))

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


@pytest.fixture
def reload(db: Database) -> Callable[..., Awaitable[Any]]:
    """``await reload(User, id)``: the row as committed now (``None`` when gone)."""

    async def read(model: type[Any], key: Any) -> Any:
        async with db.session() as session:
            return await session.get(model, key)

    return read


@pytest.fixture
def outbox(rows: Rows) -> Callable[[], Awaitable[list[tuple[str, dict[str, Any]]]]]:
    """The outbox rows as ``(event_type, payload)``, oldest first."""

    async def read() -> list[tuple[str, dict[str, Any]]]:
        return [(row.event_type, row.payload) for row in await rows(OutboxEvent)]

    return read
