"""Run cabinet_admin_users with the plugins it needs; give tests users, subscriptions,
transactions, an administrator's client and a look at the outbox."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

import pytest
from subsvc_billing.models import Transaction
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.db import Database, utcnow

PLUGINS = ["cabinet_admin_users"]
BASE = "/cabinet/admin/users"

MakeSubscription = Callable[..., Awaitable[Subscription]]
MakeTransaction = Callable[..., Awaitable[Transaction]]
Row = TypeVar("Row", Subscription, Transaction)


async def _stored(db: Database, row: Row) -> Row:
    """``row`` committed and read back (its id and database defaults filled in)."""
    async with db.session() as session:
        session.add(row)
        await session.commit()
        await session.refresh(row)
    return row


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


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
        return await _stored(db, Subscription(user_id=user.id, **fields))

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
        return await _stored(db, row)

    return make
