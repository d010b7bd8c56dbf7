"""Test fixtures of the subscriptions plugin (a pytest plugin, entry point ``pytest11``):
subscriptions written for tests as bare rows (no event, no panel)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

import pytest

from subsvc.db import Database, utcnow
from subsvc.testing import stored
from subsvc_subscriptions.models import Subscription
from subsvc_subscriptions.service import new_short_id

MakeSubscription = Callable[..., Awaitable[Subscription]]


@pytest.fixture
def make_subscription(db: Database) -> MakeSubscription:
    """``await make_subscription(user, ["squad"], days=30, status="active")``: a committed
    subscription row of ``user`` ending ``days`` from now (negative: ended), connected to those
    squads, with a new short id; ``fields`` set any other column."""

    async def make(user: Any, squads: Sequence[str] = (), *, days: float = 30, **fields: Any) -> Subscription:
        fields.setdefault("end_date", utcnow() + timedelta(days=days))
        fields.setdefault("short_id", new_short_id())
        fields.setdefault("connected_squads", list(squads))
        return await stored(db, Subscription(user_id=user.id, **fields))

    return make
