"""Run notifications with the plugins it needs; give tests users, subscriptions and
transactions made through the Web API (the WebSocket tests' server: core's ``base``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
from sqlalchemy import update
from subsvc_users.models import User

from subsvc.db import Database
from subsvc.testing import created

PLUGINS = ["notifications"]
MakeUser = Callable[..., Awaitable[dict[str, Any]]]
MakeRow = Callable[[int], Awaitable[int]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return PLUGINS


@pytest.fixture
def make_user(api_user: MakeUser, db: Database) -> MakeUser:
    """``await make_user(first_name="Ann", email="ann@example.com")``: the users' kit's
    ``api_user``; an ``email`` is then written to its row (the cabinet e-mail plugin sets it in
    real life). Returns the record."""

    async def make(email: str | None = None, **fields: Any) -> dict[str, Any]:
        record = await api_user(**fields)
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
        return int((await created(client, "/subscriptions", {"user_id": user_id, "period_days": 30}))["id"])

    return make


@pytest.fixture
def make_transaction(client: httpx2.AsyncClient) -> MakeRow:
    """``await make_transaction(user_id)``: a manual deposit through the Web API; its id."""

    async def make(user_id: int) -> int:
        body = {"amount_kopeks": 1_000}
        return int((await created(client, f"/users/{user_id}/deposit", body, 200))["transaction_id"])

    return make
