"""Run promocodes with the plugins it needs; give tests administrators' and users' clients,
users, subscriptions and codes made through the API, and a look at rows and the outbox."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from itertools import count
from typing import Any

import httpx2
import pytest

from subsvc.testing import created

PLUGINS = ["promocodes"]
ADMIN = "/cabinet/admin/promocodes"
WEB = "/promo-codes"
ACTIVATE = "/cabinet/promocode/activate"
DEACTIVATE = "/cabinet/promocode/deactivate-discount"

Make = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


@pytest.fixture
def make_user(api_user: Make) -> Make:
    """``await make_user(first_name="Ann")``: a user made through `POST /users`; its record."""
    return api_user


@pytest.fixture
def make_code(admin: httpx2.AsyncClient) -> Make:
    """``await make_code(code="BONUS", type="balance", balance_bonus_kopeks=500)``: a code made
    through the cabinet admin API (201); its record."""
    numbers = count(1)

    async def make(**fields: Any) -> dict[str, Any]:
        fields.setdefault("code", f"CODE{next(numbers)}")
        fields.setdefault("type", "balance")
        if fields["type"] == "balance":
            fields.setdefault("balance_bonus_kopeks", 10_000)
        return await created(admin, ADMIN, fields)

    return make


@pytest.fixture
def make_subscription(client: httpx2.AsyncClient) -> Make:
    """``await make_subscription(user_id, duration_days=30)``: `POST /subscriptions` (201)."""

    async def make(user_id: int, **fields: Any) -> dict[str, Any]:
        return await created(client, "/subscriptions", {"user_id": user_id, "duration_days": 30, **fields})

    return make
