"""Run billing with the plugins it needs, and give tests users and a look at the rows."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from subsvc_users.models import User

from subsvc.db import Database
from subsvc.events import OutboxEvent
from subsvc.testing import Rows

MakeUser = Callable[..., Awaitable[User]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["subsvc_promo_groups.plugin", "subsvc_users.plugin", "subsvc_billing.plugin"]


@pytest.fixture
def make_user(db: Database) -> MakeUser:
    """``await make_user(balance_kopeks=500, messenger_id=123)``: a committed user row."""
    counter = iter(range(1, 1_000_000))

    async def make(**fields: Any) -> User:
        fields.setdefault("messenger_id", 700_000_000 + next(counter))
        user = User(**fields)
        async with db.session() as session:
            session.add(user)
            await session.commit()
        return user

    return make


@pytest.fixture
def balance_of(db: Database) -> Callable[[int], Awaitable[int]]:
    async def read(user_id: int) -> int:
        async with db.session() as session:
            user = await session.get(User, user_id)
            assert user is not None
            return user.balance_kopeks

    return read


@pytest.fixture
def outbox(rows: Rows) -> Callable[[], Awaitable[list[tuple[str, dict[str, Any]]]]]:
    """The outbox rows as ``(event_type, payload)``, oldest first."""

    async def read() -> list[tuple[str, dict[str, Any]]]:
        return [(row.event_type, row.payload) for row in await rows(OutboxEvent)]

    return read


async def _wait_for(predicate: Callable[[], bool], seconds: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


@pytest.fixture
def wait_for() -> Callable[..., Awaitable[None]]:
    """``await wait_for(lambda: ...)``: poll until it holds (work done after a response)."""
    return _wait_for
