"""Run cabinet_admin_users with the plugins it needs; give tests users, subscriptions,
transactions, an administrator's client and a look at the outbox."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from subsvc_billing.models import Transaction
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User
from subsvc_users.schemas import UserCreateRequest
from subsvc_users.service import create_user

from subsvc.db import Database, utcnow
from subsvc.events import OutboxEvent
from subsvc.testing import Rows

PLUGINS = [
    "subsvc_promo_groups.plugin",
    "subsvc_users.plugin",
    "subsvc_billing.plugin",
    "subsvc_subscriptions.plugin",
    "subsvc_cabinet_admin_users.plugin",
]
BASE = "/cabinet/admin/users"

MakeUser = Callable[..., Awaitable[User]]
MakeSubscription = Callable[..., Awaitable[Subscription]]
MakeTransaction = Callable[..., Awaitable[Transaction]]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


@pytest.fixture
async def admin(app: Starlette, admin_token: str) -> AsyncIterator[httpx2.AsyncClient]:
    """A client with an administrator's access JWT."""
    async with _client(app, admin_token) as http:
        yield http


@pytest.fixture
async def member(app: Starlette, user_token: str) -> AsyncIterator[httpx2.AsyncClient]:
    """A client with an ordinary cabinet user's access JWT (no admin, no role)."""
    async with _client(app, user_token) as http:
        yield http


def _client(app: Starlette, token: str) -> httpx2.AsyncClient:
    transport = httpx2.ASGITransport(app=app, client=("127.0.0.1", 50000))
    return httpx2.AsyncClient(
        transport=transport, base_url="http://testserver", headers={"Authorization": f"Bearer {token}"}
    )


@pytest.fixture
def make_user(app: Starlette, db: Database) -> MakeUser:
    """``await make_user(username="ann", balance_kopeks=500, email=...)``: a user made by the
    users plugin's ``create_user``; other fields are then set on the row."""
    counter = iter(range(1, 1_000_000))

    async def make(**fields: Any) -> User:
        create = {name: fields.pop(name) for name in list(fields) if name in UserCreateRequest.model_fields}
        create.setdefault("messenger_id", 700_000_000 + next(counter))
        async with db.session() as session:
            user = await create_user(app, session, UserCreateRequest(**create))
            for name, value in fields.items():
                setattr(user, name, value)
            await session.commit()
            await session.refresh(user)
        return user

    return make


@pytest.fixture
def make_subscription(db: Database) -> MakeSubscription:
    """``await make_subscription(user, days=30, is_trial=False, status="active")``."""
    counter = iter(range(1, 1_000_000))

    async def make(user: User, *, days: float = 30, **fields: Any) -> Subscription:
        now = utcnow()
        fields.setdefault("start_date", now)
        fields.setdefault("end_date", now + timedelta(days=days))
        fields.setdefault("short_id", f"s{next(counter):07d}")
        fields.setdefault("created_at", now)
        subscription = Subscription(user_id=user.id, **fields)
        async with db.session() as session:
            session.add(subscription)
            await session.commit()
            await session.refresh(subscription)
        return subscription

    return make


@pytest.fixture
def make_transaction(db: Database) -> MakeTransaction:
    """``await make_transaction(user, "subscription_payment", 500)``: a completed transaction."""

    async def make(
        user: User, type: str, amount_kopeks: int, *, created_at: datetime | None = None, **fields: Any
    ) -> Transaction:
        row = Transaction(
            user_id=user.id,
            type=type,
            amount_kopeks=amount_kopeks,
            created_at=created_at or utcnow(),
            **fields,
        )
        async with db.session() as session:
            session.add(row)
            await session.commit()
            await session.refresh(row)
        return row

    return make


@pytest.fixture
def outbox(rows: Rows) -> Callable[[], Awaitable[list[tuple[str, dict[str, Any]]]]]:
    """The outbox rows as ``(event_type, payload)``, oldest first."""

    async def read() -> list[tuple[str, dict[str, Any]]]:
        return [(row.event_type, row.payload) for row in await rows(OutboxEvent)]

    return read


@pytest.fixture
def reload(db: Database) -> Callable[..., Awaitable[Any]]:
    """``await reload(User, id)``: the row as committed now (``None`` when gone)."""

    async def read(model: type[Any], key: Any) -> Any:
        async with db.session() as session:
            return await session.get(model, key)

    return read
