"""Run segments (the plugins it reads come with it), and give tests users and subscriptions as rows."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.db import Database, utcnow

PLUGINS = ["segments"]
MakeSubscription = Callable[..., Awaitable[Subscription]]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


@pytest.fixture
def now() -> datetime:
    return utcnow()


@pytest.fixture
def make_subscription(db: Database, now: datetime) -> MakeSubscription:
    """``await make_subscription(user, days=10, status="active")``: a committed subscription
    ending ``days`` from now (negative: ended)."""
    counter = itertools.count(1)

    async def make(user: User, days: float = 30, **fields: Any) -> Subscription:
        assert user.id is not None
        subscription = Subscription(
            user_id=user.id,
            end_date=now + timedelta(days=days),
            short_id=f"s{next(counter):07d}",
            **fields,
        )
        async with db.session() as session:
            session.add(subscription)
            await session.commit()
        return subscription

    return make
