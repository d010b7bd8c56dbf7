"""Run subscriptions with the plugins it needs; give tests users, subscriptions, settings and
a look at the rows and the outbox."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import pytest
from starlette.applications import Starlette
from subsvc_subscriptions.models import Subscription
from subsvc_subscriptions.settings import SubscriptionSettings
from subsvc_subscriptions.testing import MakeSubscription
from subsvc_users.models import User

from subsvc.db import utcnow

Outbox = Callable[[], Awaitable[list[tuple[str, dict[str, Any]]]]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["subscriptions"]


@pytest.fixture
def make_subscription(make_subscription: MakeSubscription) -> MakeSubscription:
    """``await make_subscription(user, status="expired", end_in=timedelta(days=-1))``: the kit's
    row (no event), 100 GB, synced, begun a day ago, ending ``end_in`` from now."""

    async def make(user: User, *, end_in: timedelta = timedelta(days=30), **fields: Any) -> Subscription:
        now = utcnow()
        values = {"start_date": now - timedelta(days=1), "end_date": now + end_in, "traffic_limit_gb": 100}
        return await make_subscription(user, **{**values, "panel_sync_state": "synced", **fields})

    return make


@pytest.fixture
def configure(app: Starlette) -> Callable[..., SubscriptionSettings]:
    """``configure(MAX_DEVICES_LIMIT=5)``: the plugin's settings for this app."""

    def apply(**values: Any) -> SubscriptionSettings:
        settings = SubscriptionSettings(_env_file=None, **values)  # type: ignore[call-arg]
        app.state.settings_of["subscriptions"] = settings
        return settings

    return apply
