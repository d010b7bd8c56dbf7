"""End-to-end scenarios every provider plugin passes, over real HTTP: our app on a loopback
uvicorn, the provider's loopback fake beside it, notifications sent as the provider sends them.

A provider plugin's tests give a :class:`ProviderFake` (its fake, pointed at by the app's
settings) and run every scenario::

    @pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
    async def test_end_to_end(scenario, provider_e2e):
        await scenario(provider_e2e)

``provider_e2e`` (a fixture of ``subsvc_payments.testing``) serves the app, makes a user and
needs the fixture ``provider_fake``, which the provider plugin's tests define.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol

import httpx2
from sqlmodel import col, select, update
from starlette.applications import Starlette

from subsvc.db import Database, utcnow
from subsvc_payments.jobs import expire_due
from subsvc_payments.models import EXPIRED, PENDING, REFUSED_MISMATCH, SUCCEEDED, Payment

AMOUNT = 25_000


@dataclass(frozen=True)
class Delivery:
    """A notification as the provider sends it: to ``path`` on our server, its raw body and
    headers, from ``source_ip`` (a loopback address: 127.0.0.1, or another of 127.0.0.0/8 to
    stand for a foreign sender)."""

    path: str
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)
    source_ip: str = "127.0.0.1"


class ProviderFake(Protocol):
    """A provider's loopback fake, as the scenarios drive it. ``method`` and ``option`` are
    what the cabinet tops up with (the method id, and an option or ``None``)."""

    method: str
    option: str | None

    async def pay(self, provider_payment_id: str, paid_kopeks: int | None = None) -> None:
        """The payer pays the payment at the provider; the provider then reports
        ``paid_kopeks`` (in the payment's currency) paid — by default the amount asked."""
        ...

    def notification(self, provider_payment_id: str) -> Delivery:
        """The notification the provider sends now about the payment, verified its way
        (signature, address, secret)."""
        ...

    def forged(self, provider_payment_id: str) -> Delivery:
        """The same notification as a forger would send it (a bad signature or secret, or
        from a foreign address): the provider's verification must refuse it."""
        ...


@dataclass
class EndToEnd:
    """What a scenario works with: the app and its database, its URL on loopback, the
    provider's fake, a user with a cabinet client (real HTTP), and a Web API client."""

    app: Starlette
    db: Database
    base_url: str
    fake: ProviderFake
    user: Any
    cabinet: httpx2.AsyncClient
    web: httpx2.AsyncClient

    async def topup(self, amount_kopeks: int = AMOUNT) -> Payment:
        """The user's top-up through the cabinet (200), and its payment row."""
        body: dict[str, Any] = {"amount_kopeks": amount_kopeks, "payment_method": self.fake.method}
        if self.fake.option is not None:
            body["payment_option"] = self.fake.option
        response = await self.cabinet.post("/cabinet/balance/topup", json=body)
        assert response.status_code == 200, response.text
        assert response.json()["payment_url"].startswith("http")
        return await self.payment(int(response.json()["payment_id"]))

    async def payment(self, payment_id: int) -> Payment:
        async with self.db.session(read_only=True) as session:
            found = (await session.exec(select(Payment).where(col(Payment.id) == payment_id))).one()
            return found

    async def deliver(self, delivery: Delivery) -> httpx2.Response:
        """Send a notification to our server as the provider would."""
        transport = httpx2.AsyncHTTPTransport(local_address=delivery.source_ip)
        async with httpx2.AsyncClient(base_url=self.base_url, transport=transport) as http:
            return await http.post(delivery.path, content=delivery.body, headers=dict(delivery.headers))

    async def balance(self) -> int:
        response = await self.web.get(f"/users/{self.user.messenger_id}")
        assert response.status_code == 200, response.text
        balance: int = response.json()["balance_kopeks"]
        return balance

    async def deposits(self) -> list[int]:
        response = await self.web.get("/transactions", params={"user_id": self.user.id, "limit": 200})
        assert response.status_code == 200, response.text
        return [item["amount_kopeks"] for item in response.json()["items"] if item["type"] == "deposit"]


def _provider_id(payment: Payment) -> str:
    assert payment.provider_payment_id is not None, "the provider's id is attached at top-up"
    return payment.provider_payment_id


async def paid_notification_sent_five_times_at_once_credits_once(e2e: EndToEnd) -> None:
    payment = await e2e.topup()
    await e2e.fake.pay(_provider_id(payment))
    delivery = e2e.fake.notification(_provider_id(payment))
    answers = await asyncio.gather(*(e2e.deliver(delivery) for _ in range(5)))
    assert [answer.status_code for answer in answers] == [200] * 5, [a.text for a in answers]
    assert await e2e.balance() == AMOUNT
    assert await e2e.deposits() == [AMOUNT]
    assert (await e2e.payment(payment.id or 0)).status == SUCCEEDED


async def forged_notification_is_refused_and_changes_nothing(e2e: EndToEnd) -> None:
    payment = await e2e.topup()
    await e2e.fake.pay(_provider_id(payment))
    refused = await e2e.deliver(e2e.fake.forged(_provider_id(payment)))
    assert refused.status_code in (401, 403), refused.text
    assert await e2e.balance() == 0
    assert (await e2e.payment(payment.id or 0)).status == PENDING
    genuine = await e2e.deliver(e2e.fake.notification(_provider_id(payment)))
    assert genuine.status_code == 200, genuine.text
    assert await e2e.balance() == AMOUNT


async def amount_mismatch_is_recorded_and_not_credited(e2e: EndToEnd) -> None:
    payment = await e2e.topup()
    await e2e.fake.pay(_provider_id(payment), paid_kopeks=AMOUNT - 100)
    answer = await e2e.deliver(e2e.fake.notification(_provider_id(payment)))
    assert answer.status_code == 200, answer.text
    refused = await e2e.payment(payment.id or 0)
    assert (refused.status, refused.paid_amount_kopeks) == (REFUSED_MISMATCH, AMOUNT - 100)
    assert await e2e.balance() == 0
    assert await e2e.deposits() == []


async def pending_payment_expires_and_paid_later_credits_once_flagged(e2e: EndToEnd) -> None:
    payment = await e2e.topup()
    async with e2e.db.session() as session:  # its time has come: moved, not waited for
        past = utcnow() - timedelta(minutes=1)
        await session.exec(update(Payment).where(col(Payment.id) == payment.id).values(expires_at=past))
        await session.commit()
    assert await expire_due(e2e.app) == 1
    assert (await e2e.payment(payment.id or 0)).status == EXPIRED
    await e2e.fake.pay(_provider_id(payment))
    for _ in range(2):
        answer = await e2e.deliver(e2e.fake.notification(_provider_id(payment)))
        assert answer.status_code == 200, answer.text
    late = await e2e.payment(payment.id or 0)
    assert (late.status, late.flagged_late) == (SUCCEEDED, True)
    assert await e2e.deposits() == [AMOUNT]


Scenario = Callable[[EndToEnd], Awaitable[None]]
SCENARIOS: list[Scenario] = [
    paid_notification_sent_five_times_at_once_credits_once,
    forged_notification_is_refused_and_changes_nothing,
    amount_mismatch_is_recorded_and_not_credited,
    pending_payment_expires_and_paid_later_credits_once_flagged,
]
