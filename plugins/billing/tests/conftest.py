"""Run billing with the plugins it needs, and give tests users and a look at the rows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from subsvc_users.models import User

from subsvc.db import Database


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["billing"]


@pytest.fixture
def balance_of(db: Database) -> Callable[[int], Awaitable[int]]:
    async def read(user_id: int) -> int:
        async with db.session() as session:
            user = await session.get(User, user_id)
            assert user is not None
            return user.balance_kopeks

    return read
