"""Run payments with the plugins it needs; helpers that create, credit and read payments,
each in a session of its own (as a request or a provider's notification would)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from subsvc_payments.api import Outcome, Payment, create_payment, credit_paid, mark_failed

from subsvc.db import Database

PROVIDER = "fakepay"


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["payments"]


def fake_provider_plugin() -> ModuleType:
    """The test provider plugin (fake_provider.py), loaded once (test modules import nothing
    from each other)."""
    name = "subsvc_payments_tests_fake_provider"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("fake_provider.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture
def provider_plugin() -> ModuleType:
    """The test provider plugin's module, for ``subsvc_plugins``."""
    return fake_provider_plugin()


@pytest.fixture
def fake_provider() -> Iterator[Any]:
    """The test provider plugin's provider, configured for this test (with
    ``subsvc_plugins`` returning ``["payments", provider_plugin]``)."""
    plugin = fake_provider_plugin()
    plugin.Configured.provider = provider = plugin.FakeProvider()
    yield provider
    plugin.Configured.provider = None


@pytest.fixture
def new_payment(app: Starlette, db: Database) -> Callable[..., Awaitable[Payment]]:
    """``await new_payment(user_id, 15_000, provider_payment_id="p-1")``: a committed payment."""

    async def make(
        user_id: int,
        amount_kopeks: int,
        *,
        provider_payment_id: str | None = None,
        idempotency_key: str | None = None,
        **options: Any,
    ) -> Payment:
        async with db.session() as session:
            payment, _ = await create_payment(
                app,
                session,
                user_id,
                options.pop("provider", PROVIDER),
                options.pop("method", "card"),
                amount_kopeks,
                idempotency_key,
                provider_payment_id=provider_payment_id,
                **options,
            )
            await session.commit()
            await session.refresh(payment)
            return payment

    return make


@pytest.fixture
def credit(app: Starlette, db: Database) -> Callable[..., Awaitable[Outcome]]:
    """``await credit("p-1", 15_000)``: a paid notification processed in its own transaction."""

    async def run(
        provider_payment_id: str, paid_kopeks: int, currency: str = "RUB", provider: str = PROVIDER
    ) -> Outcome:
        raw = {"id": provider_payment_id, "paid": paid_kopeks, "currency": currency}
        async with db.session() as session:
            outcome = await credit_paid(
                app, session, provider, provider_payment_id, paid_kopeks, currency, raw
            )
            await session.commit()
            return outcome

    return run


@pytest.fixture
def fail(app: Starlette, db: Database) -> Callable[..., Awaitable[Outcome]]:
    """``await fail("p-1", "canceled")``: an unpaid end processed in its own transaction."""

    async def run(provider_payment_id: str, status: str, reason: str | None = None) -> Outcome:
        async with db.session() as session:
            outcome = await mark_failed(
                app, session, PROVIDER, provider_payment_id, status, reason, {"s": status}
            )
            await session.commit()
            return outcome

    return run


@pytest.fixture
def balance_over_http(client: httpx2.AsyncClient) -> Callable[[Any], Awaitable[int]]:
    """The user's balance as ``GET /users/{messenger_id}`` answers it."""

    async def read(user: Any) -> int:
        response = await client.get(f"/users/{user.messenger_id}")
        assert response.status_code == 200
        balance: int = response.json()["balance_kopeks"]
        return balance

    return read


@pytest.fixture
def transactions_over_http(client: httpx2.AsyncClient) -> Callable[[Any], Awaitable[list[dict[str, Any]]]]:
    """The user's transactions as ``GET /transactions?user_id=`` answers them, newest first."""

    async def read(user: Any) -> list[dict[str, Any]]:
        response = await client.get("/transactions", params={"user_id": user.id, "limit": 200})
        assert response.status_code == 200
        items: list[dict[str, Any]] = response.json()["items"]
        return items

    return read
