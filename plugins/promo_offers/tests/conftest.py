"""Run promo_offers with the plugins it needs; give tests users, subscriptions, transactions,
an administrator's and a user's client, and a look at the rows."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.db import Database, utcnow
from subsvc.testing import ADMIN_MESSENGER_ID, USER_MESSENGER_ID, bearer_client

PLUGINS = ["promo_offers"]
ADMIN = "/cabinet/admin/promo-offers"
WEB = "/promo-offers"
CABINET = "/cabinet/promo"

MakeUser = Callable[..., Awaitable[User]]
MakeSubscription = Callable[..., Awaitable[Subscription]]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


@pytest.fixture
async def admin_user(make_user: MakeUser) -> User:
    """User 1: the administrator of the ``admin_token`` fixture."""
    return await make_user(messenger_id=ADMIN_MESSENGER_ID, username="admin")


@pytest.fixture
async def member_user(admin_user: User, make_user: MakeUser) -> User:
    """User 2: the cabinet user of the ``user_token`` fixture."""
    return await make_user(
        messenger_id=USER_MESSENGER_ID, username="member", first_name="Mia", last_name="Lind"
    )


@pytest.fixture
async def admin(app: Starlette, admin_token: str, member_user: User) -> AsyncIterator[httpx2.AsyncClient]:
    """A client with the administrator's access JWT (users 1 and 2 exist)."""
    async with bearer_client(app, admin_token) as http:
        yield http


@pytest.fixture
async def member(app: Starlette, user_token: str, member_user: User) -> AsyncIterator[httpx2.AsyncClient]:
    """A client with the ordinary cabinet user's access JWT (user 2; no admin, no role)."""
    async with bearer_client(app, user_token) as http:
        yield http


@pytest.fixture
def make_subscription(db: Database) -> MakeSubscription:
    """``await make_subscription(user, days=30, is_trial=False, status="active")``."""
    counter = iter(range(1, 1_000_000))

    async def make(user: User, *, days: float = 30, **fields: Any) -> Subscription:
        now = utcnow()
        fields.setdefault("start_date", now)
        fields.setdefault("end_date", now + timedelta(days=days))
        fields.setdefault("short_id", f"p{next(counter):07d}")
        subscription = Subscription(user_id=user.id, **fields)
        async with db.session() as session:
            session.add(subscription)
            await session.commit()
            await session.refresh(subscription)
        return subscription

    return make


async def _wait_for(predicate: Callable[[], Awaitable[bool]], seconds: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not await predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.05)


@pytest.fixture
def wait_for() -> Callable[..., Awaitable[None]]:
    """``await wait_for(async_predicate, seconds)``: poll until it holds (work done after a response)."""
    return _wait_for


@pytest.fixture(autouse=True)
def _no_periodic_upkeep(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run the upkeep themselves (``sender.upkeep``) instead of every minute."""
    monkeypatch.setenv("PROMO_OFFERS_UPKEEP_SECONDS", "0")
