"""Run the campaigns plugin with the cabinet's messenger login (its registrations carry the
campaign slug); sign the messenger's init data."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

import pytest
from starlette.applications import Starlette
from subsvc_billing.api import DEPOSIT, move_balance
from subsvc_cabinet_auth.messenger import init_data_secret, sign
from subsvc_campaigns.attribution import on_user_created

from subsvc.db import utcnow
from subsvc.events import Event
from subsvc.services import services

BOT_TOKEN = "123456:TEST-bot-token-for-signatures"


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["campaigns", "cabinet_auth", "billing", "tariffs", "servers", "subscriptions"]


@pytest.fixture
def subsvc_settings_overrides() -> dict[str, Any]:
    return {"BOT_TOKEN": BOT_TOKEN}


def init_data(user: dict[str, Any]) -> str:
    """Mini-application init data for ``user`` as the messenger signs it."""
    fields = {"auth_date": str(int(time.time())), "query_id": "AAHdF6IQAAAAAN0XohDhrOrc"}
    fields["user"] = json.dumps(user, separators=(",", ":"))
    fields["hash"] = sign(init_data_secret(BOT_TOKEN), fields)
    return urlencode(fields)


@pytest.fixture
def login(anon_client: Any) -> Callable[[int, str | None], Awaitable[int]]:
    """``await login(messenger_id, slug)``: a messenger login of the cabinet (making the
    account the first time) arriving with campaign ``slug``; the user's id."""

    async def log_in(messenger_id: int, slug: str | None) -> int:
        person = {"id": messenger_id, "first_name": f"U{messenger_id}", "username": f"u{messenger_id}"}
        body = {"init_data": init_data(person), **({"campaign_slug": slug} if slug else {})}
        r = await anon_client.post("/cabinet/auth/messenger", json=body)
        assert r.status_code == 200, r.text
        return int(r.json()["user"]["id"])

    return log_in


@pytest.fixture
def redeliver(app: Starlette) -> Callable[[int], Awaitable[None]]:
    """``await redeliver(user_id)``: the ``user.created`` event delivered (again), as an
    at-least-once delivery may; returns when the campaigns plugin handled it."""

    async def deliver(user_id: int) -> None:
        event = Event(id=0, type="user.created", payload={"user_id": user_id}, created_at=utcnow())
        await on_user_created(app, event)

    return deliver


@pytest.fixture
def pay(app: Starlette) -> Callable[[int, int, str], Awaitable[int]]:
    """``await pay(user_id, kopeks, method)``: a completed deposit through billing's public
    API, as a payment plugin records one (``manual`` is an administrator's credit); its id."""

    async def deposit(user_id: int, kopeks: int, method: str) -> int:
        async with services(app).db.session() as session:
            events = services(app).events
            transaction_id, _ = await move_balance(
                session, events, user_id, kopeks, type=DEPOSIT, description=None, payment_method=method
            )
            await session.commit()
        return transaction_id

    return deposit
