"""Run segments (the plugins it reads come with it); subscriptions ending relative to ``now``."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from subsvc_subscriptions.models import Subscription
from subsvc_subscriptions.testing import MakeSubscription

from subsvc.db import utcnow

PLUGINS = ["segments"]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


@pytest.fixture
def now() -> datetime:
    return utcnow()


@pytest.fixture
def make_subscription(make_subscription: MakeSubscription, now: datetime) -> MakeSubscription:
    """``await make_subscription(user, days=10, status="active")``: the subscriptions kit's row,
    ending ``days`` from ``now`` (negative: ended)."""

    async def make(user: Any, days: float = 30, **fields: Any) -> Subscription:
        return await make_subscription(user, end_date=now + timedelta(days=days), **fields)

    return make
