"""Test fixtures of the payments plugin (a pytest plugin, entry point ``pytest11``), for its
own tests and the provider plugins'. ``payment_provider`` names the provider they work on
(override it: ``"yookassa"``); each helper works in a session of its own, as a request or a
provider's notification would.

- ``new_payment(user_id, amount, provider_payment_id=...)``: a committed pending payment;
- ``credit("p-1", 15_000)``: a paid report processed in its own transaction;
- :func:`topup` (``POST /cabinet/balance/topup`` with a user's client, checked 200);
- ``balance_over_http(user)``, ``transactions_over_http(user)``: what the Web API says;
- ``provider_e2e``: the app on a loopback uvicorn with a user, for the end-to-end scenarios
  of :mod:`subsvc_payments.testing_e2e` (needs the provider's ``provider_fake`` fixture);
  their :class:`Delivery`, :class:`ProviderFake` and ``SCENARIOS`` are here too, for a provider
  plugin's own testing module (which may import only this one of payments' testing modules).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette

from subsvc.db import Database
from subsvc.services import services
from subsvc.testing_server import LoopbackServer
from subsvc_payments.crediting import Outcome, credit_paid
from subsvc_payments.models import Payment
from subsvc_payments.records import create_payment
from subsvc_payments.testing_e2e import SCENARIOS, Delivery, EndToEnd, ProviderFake

__all__ = ["SCENARIOS", "Delivery", "EndToEnd", "ProviderFake", "topup"]


@pytest.fixture
def payment_provider() -> str:
    """The provider the payment fixtures work on (override in a provider plugin's tests)."""
    return "fakepay"


@pytest.fixture
def new_payment(app: Starlette, db: Database, payment_provider: str) -> Callable[..., Awaitable[Payment]]:
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
                options.pop("provider", payment_provider),
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
def credit(app: Starlette, db: Database, payment_provider: str) -> Callable[..., Awaitable[Outcome]]:
    """``await credit("p-1", 15_000)``: a paid notification processed in its own transaction."""

    async def run(
        provider_payment_id: str, paid_kopeks: int, currency: str = "RUB", provider: str | None = None
    ) -> Outcome:
        raw = {"id": provider_payment_id, "paid": paid_kopeks, "currency": currency}
        async with db.session() as session:
            outcome = await credit_paid(
                app, session, provider or payment_provider, provider_payment_id, paid_kopeks, currency, raw
            )
            await session.commit()
            return outcome

    return run


async def topup(
    http: httpx2.AsyncClient, method: str, amount_kopeks: int, option: str | None = None, **headers: str
) -> dict[str, Any]:
    """The user's ``POST /cabinet/balance/topup`` (``http`` carries the user's JWT), answered
    200: its body."""
    body: dict[str, Any] = {"amount_kopeks": amount_kopeks, "payment_method": method}
    if option is not None:
        body["payment_option"] = option
    response = await http.post("/cabinet/balance/topup", json=body, headers=headers)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


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


@pytest.fixture
async def provider_e2e(
    app: Starlette,
    db: Database,
    api_key: str,
    insert_user: Callable[..., Awaitable[Any]],
    provider_fake: ProviderFake,
) -> AsyncIterator[EndToEnd]:
    """The app served on loopback, a user with a cabinet client and a Web API client (both
    over real HTTP) and the provider's fake: what the end-to-end scenarios run on."""
    user = await insert_user()
    token = services(app).jwt.access_token(user.id)
    async with (
        LoopbackServer(app) as server,
        httpx2.AsyncClient(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as cabinet,
        httpx2.AsyncClient(base_url=server.url, headers={"X-API-Key": api_key}) as web,
    ):
        yield EndToEnd(app, db, server.url, provider_fake, user, cabinet, web)
