"""Run cabinet_admin_users with the plugins it needs; give tests transactions (users and
subscriptions come from the users' and subscriptions' test kits)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

import pytest
from subsvc_billing.models import Transaction
from subsvc_users.models import User

from subsvc.db import Database, utcnow
from subsvc.testing import stored

PLUGINS = ["cabinet_admin_users"]
BASE = "/cabinet/admin/users"

MakeTransaction = Callable[..., Awaitable[Transaction]]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


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
        return await stored(db, row)

    return make
