"""Run the cabinet with the plugins it needs; give tests users (made through the API), their
cabinet clients, and a loopback server for the WebSocket tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from itertools import count
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from subsvc.testing import asgi_transport
from subsvc.testing_server import LoopbackServer

PLUGINS = ["cabinet"]
MakeUser = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return PLUGINS


@pytest.fixture
def make_user(client: httpx2.AsyncClient) -> MakeUser:
    """``await make_user()``: a user created through `POST /users`; its record."""
    numbers = count(1)

    async def make(**fields: Any) -> dict[str, Any]:
        fields.setdefault("messenger_id", 710_000_000 + next(numbers))
        response = await client.post("/users", json=fields)
        assert response.status_code == 201, response.text
        return dict(response.json())

    return make


@pytest.fixture
def cabinet(app: Starlette) -> Callable[[int], httpx2.AsyncClient]:
    """``cabinet(user_id)``: a client carrying that user's access JWT (close it with ``async with``)."""

    def make(user_id: int) -> httpx2.AsyncClient:
        token = app.state.jwt.access_token(user_id)
        return httpx2.AsyncClient(
            transport=asgi_transport(app),
            base_url="http://testserver",
            headers={"Authorization": f"Bearer {token}"},
        )

    return make


@asynccontextmanager
async def serving(app: Starlette) -> AsyncIterator[str]:
    """Serve a started app on a free loopback port; yields its ws:// base."""
    async with LoopbackServer(app) as server:
        yield server.ws_url


@pytest.fixture
def serve() -> Callable[[Starlette], Any]:
    """``async with serve(app) as base``: the app on a loopback uvicorn (``base`` = ws://host:port)."""
    return serving
