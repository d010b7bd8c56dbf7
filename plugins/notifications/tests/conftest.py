"""Run notifications with the plugins it needs; give tests users, subscriptions and
transactions made through the Web API, and a loopback server for the WebSocket tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from itertools import count
from typing import Any

import httpx2
import pytest
from sqlalchemy import update
from starlette.applications import Starlette
from subsvc_users.models import User

from subsvc.db import Database
from subsvc.testing_server import LoopbackServer

PLUGINS = ["notifications"]
MakeUser = Callable[..., Awaitable[dict[str, Any]]]
MakeRow = Callable[[int], Awaitable[int]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return PLUGINS


@pytest.fixture
def make_user(client: httpx2.AsyncClient, db: Database) -> MakeUser:
    """``await make_user(first_name="Ann", email="ann@example.com")``: a user created through
    `POST /users` (a messenger id is given unless ``messenger_id=None``); an ``email`` is then
    written to its row (the cabinet e-mail plugin sets it in real life). Returns the record."""
    numbers = count(1)

    async def make(**fields: Any) -> dict[str, Any]:
        email = fields.pop("email", None)
        fields.setdefault("messenger_id", 720_000_000 + next(numbers))
        response = await client.post("/users", json={k: v for k, v in fields.items() if v is not None})
        assert response.status_code == 201, response.text
        record = dict(response.json())
        if email is not None:
            async with db.session() as session:
                await session.exec(update(User).where(User.id == record["id"]).values(email=email))  # type: ignore[call-overload, arg-type]
                await session.commit()
            record["email"] = email
        return record

    return make


@pytest.fixture
def make_subscription(client: httpx2.AsyncClient) -> MakeRow:
    """``await make_subscription(user_id)``: a subscription made through the Web API; its id."""

    async def make(user_id: int) -> int:
        response = await client.post("/subscriptions", json={"user_id": user_id, "period_days": 30})
        assert response.status_code in (200, 201), response.text
        return int(response.json()["id"])

    return make


@pytest.fixture
def make_transaction(client: httpx2.AsyncClient) -> MakeRow:
    """``await make_transaction(user_id)``: a manual deposit through the Web API; its id."""

    async def make(user_id: int) -> int:
        response = await client.post(f"/users/{user_id}/deposit", json={"amount_kopeks": 1_000})
        assert response.status_code == 200, response.text
        return int(response.json()["transaction_id"])

    return make


@asynccontextmanager
async def serving(app: Starlette) -> AsyncIterator[str]:
    """Serve a started app on a free loopback port; yields its ws:// base."""
    async with LoopbackServer(app) as server:
        yield server.ws_url


@pytest.fixture
async def base(app: Starlette) -> AsyncIterator[str]:
    """The app on a loopback uvicorn: its ws:// base URL."""
    async with serving(app) as url:
        yield url
