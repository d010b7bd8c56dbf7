"""Test fixtures of the users plugin (a pytest plugin, entry point ``pytest11``): users made
for tests, through the plugin's own service or as bare rows."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from starlette.applications import Starlette

from subsvc.db import Database
from subsvc_users.models import User
from subsvc_users.schemas import UserCreateRequest
from subsvc_users.service import create_user

MakeUser = Callable[..., Awaitable[Any]]


@pytest.fixture
def make_user(app: Starlette, db: Database) -> MakeUser:
    """``await make_user(username="ann", email=...)``: a committed user made by the plugin's
    ``create_user`` (messenger id unless given); fields it does not take are then set on the row."""
    counter = itertools.count(1)

    async def make(**fields: Any) -> Any:
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
def insert_user(db: Database) -> MakeUser:
    """``await insert_user(balance_kopeks=500)``: a bare committed ``users`` row, none of the
    plugin's logic (messenger id unless given)."""
    counter = itertools.count(1)

    async def insert(**fields: Any) -> Any:
        fields.setdefault("messenger_id", 700_000_000 + next(counter))
        user = User(**fields)
        async with db.session() as session:
            session.add(user)
            await session.commit()
            await session.refresh(user)
        return user

    return insert
