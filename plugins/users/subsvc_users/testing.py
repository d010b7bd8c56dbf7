"""Test fixtures of the users plugin (a pytest plugin, entry point ``pytest11``): users made
for tests, through the plugin's own service, through the Web API or as bare rows.

- ``make_user`` (the service's ``create_user``), ``insert_user`` (a bare row), ``api_user``
  (``POST /users``; :func:`post_user` for any client), :func:`insert_users` (many rows in one
  INSERT);
- ``admin_user`` and ``member_user``: users 1 and 2, whom ``admin_token`` and ``user_token``
  name (made with the test's ``make_user``)."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
import sqlalchemy as sa
from starlette.applications import Starlette

from subsvc.db import Database
from subsvc.testing import ADMIN_MESSENGER_ID, USER_MESSENGER_ID, created
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


async def post_user(http: httpx2.AsyncClient, **fields: Any) -> dict[str, Any]:
    """``POST /users`` as ``http`` (fields that are ``None`` left out), asserting 201; the record."""
    return await created(http, "/users", {k: v for k, v in fields.items() if v is not None})


@pytest.fixture
def api_user(client: httpx2.AsyncClient) -> Callable[..., Awaitable[dict[str, Any]]]:
    """``await api_user(first_name="Ann")``: :func:`post_user` with the API key, a messenger id
    unless given (``messenger_id=None``: none); the record."""
    counter = itertools.count(1)

    async def make(**fields: Any) -> dict[str, Any]:
        fields.setdefault("messenger_id", 710_000_000 + next(counter))
        return await post_user(client, **fields)

    return make


async def insert_users(db: Database, rows: list[dict[str, Any]]) -> list[int]:
    """Bare ``users`` rows (each dict's fields, the model's defaults for the rest) in one INSERT;
    their ids, in order (each row needs a distinct ``messenger_id``)."""
    values = [User(**row).model_dump(exclude={"id"}) for row in rows]
    table = User.__table__  # type: ignore[attr-defined]
    async with db.session() as session:
        await session.exec(sa.insert(table), params=values)
        await session.commit()
        chats = [row["messenger_id"] for row in rows]
        within = table.c.messenger_id.between(min(chats), max(chats))
        query = sa.select(table.c.id, table.c.messenger_id).where(within)
        ids = {chat: user_id for user_id, chat in (await session.exec(query)).all()}  # type: ignore[call-overload]
    return [ids[chat] for chat in chats]


@pytest.fixture
async def admin_user(make_user: MakeUser) -> Any:
    """User 1: the administrator of the ``admin_token`` fixture."""
    return await make_user(messenger_id=ADMIN_MESSENGER_ID, username="admin")


@pytest.fixture
async def member_user(admin_user: Any, make_user: MakeUser) -> Any:
    """User 2: the cabinet user of the ``user_token`` fixture (after ``admin_user``)."""
    return await make_user(
        messenger_id=USER_MESSENGER_ID, username="member", first_name="Mia", last_name="Lind"
    )
