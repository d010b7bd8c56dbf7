"""Run cabinet_auth with the plugins it needs; sign messenger login data like the messenger does."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

import pytest
from subsvc_cabinet_auth.messenger import init_data_secret, sign, widget_secret
from subsvc_users.models import User

from subsvc.db import Database

BOT_TOKEN = "123456:TEST-bot-token-for-signatures"
MakeUser = Callable[..., Awaitable[User]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["subsvc_promo_groups.plugin", "subsvc_users.plugin", "subsvc_cabinet_auth.plugin"]


@pytest.fixture
def subsvc_settings_overrides() -> dict[str, Any]:
    return {"BOT_TOKEN": BOT_TOKEN}


def init_data(
    user: dict[str, Any] | None = None,
    *,
    auth_date: int | None = None,
    token: str = BOT_TOKEN,
    extra: dict[str, str] | None = None,
) -> str:
    """Mini-application init data as the messenger signs it."""
    fields: dict[str, str] = {
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        **(extra or {}),
    }
    if user is not None:
        fields["user"] = json.dumps(user, separators=(",", ":"))
    fields["hash"] = sign(init_data_secret(token), fields)
    return urlencode(fields)


def widget(
    messenger_id: int = 555_000_001,
    *,
    auth_date: int | None = None,
    token: str = BOT_TOKEN,
    **fields: Any,
) -> dict[str, Any]:
    """Login-widget fields as the widget hands them over, signed."""
    data: dict[str, Any] = {
        "id": messenger_id,
        "first_name": "Wanda",
        "username": "wanda",
        "auth_date": int(time.time()) if auth_date is None else auth_date,
        **fields,
    }
    data["hash"] = sign(widget_secret(token), {k: v for k, v in data.items() if v is not None})
    return data


@pytest.fixture
def make_user(db: Database) -> MakeUser:
    """``await make_user(status="blocked")``: a committed user row."""
    counter = iter(range(1, 1_000_000))

    async def make(**fields: Any) -> User:
        fields.setdefault("messenger_id", 710_000_000 + next(counter))
        user = User(**fields)
        async with db.session() as session:
            session.add(user)
            await session.commit()
        return user

    return make


@pytest.fixture
def sign_init_data() -> Callable[..., str]:
    """``sign_init_data({"id": 1, ...}, auth_date=..., token=...)``: signed init data."""
    return init_data


@pytest.fixture
def sign_widget() -> Callable[..., dict[str, Any]]:
    """``sign_widget(messenger_id, auth_date=..., **fields)``: signed login-widget fields."""
    return widget
