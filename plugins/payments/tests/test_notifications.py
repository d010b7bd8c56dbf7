"""A provider's notification endpoint, through the test provider plugin (its notifications
are HMAC-signed JSON): a paid one credits once however often it comes, a forged or stale one
is refused and changes nothing, an unknown payment is answered 200 and logged, the path
follows its setting; and the polling job, which asks the provider about pending payments."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta
from types import ModuleType
from typing import Any

import httpx2
import pytest
from outage import Outage
from subsvc_payments.api import FAILED, PENDING, SUCCEEDED, Payment, ProviderStatus
from subsvc_payments.jobs import poll_due
from subsvc_payments.settings import PaymentsSettings
from subsvc_payments.testing import topup

from subsvc.app import create_app
from subsvc.db import utcnow

URL = "/webhooks/payments/fakepay"


@pytest.fixture
def notify(anon_client: Any, provider_plugin: ModuleType) -> Any:
    """``await notify("p-1", "paid", amount=15_000)``: the provider's notification, signed."""

    async def send(
        provider_payment_id: str, state: str, *, signature: str | None = None, age: float = 0, **fields: Any
    ) -> Any:
        sent_at = utcnow() - timedelta(seconds=age)
        body, signed = provider_plugin.notification(provider_payment_id, state, sent_at, **fields)
        headers = {"X-Fake-Signature": signature or signed, "Content-Type": "application/json"}
        return await anon_client.post(URL, content=body, headers=headers)

    return send


async def test_a_paid_notification_sent_five_times_at_once_credits_once(
    insert_user, new_payment, notify, fake_provider, rows, balance_over_http, transactions_over_http, outbox
):
    user = await insert_user(balance_kopeks=100)
    await new_payment(user.id, 15_000, provider_payment_id="p-1")
    answers = await asyncio.gather(*(notify("p-1", "paid", amount=15_000, currency="RUB") for _ in range(5)))
    assert [(a.status_code, a.json()) for a in answers] == [(200, {"status": "ok"})] * 5
    assert await balance_over_http(user) == 15_100
    assert [t["amount_kopeks"] for t in await transactions_over_http(user)] == [15_000]
    [payment] = await rows(Payment)
    assert (payment.status, payment.paid_amount_kopeks) == (SUCCEEDED, 15_000)
    assert payment.data["paid_notification"]["id"] == "p-1"
    assert Counter(kind for kind, _ in await outbox())["balance.topped_up"] == 1


async def test_forged_and_stale_notifications_are_refused_and_change_nothing(
    insert_user, new_payment, notify, fake_provider, rows, balance_over_http
):
    user = await insert_user()
    await new_payment(user.id, 15_000, provider_payment_id="p-1")
    forged = await notify("p-1", "paid", amount=15_000, signature="0" * 64)
    assert (forged.status_code, forged.json()) == (401, {"status": "error", "reason": "invalid_signature"})
    stale = await notify("p-1", "paid", amount=15_000, age=3600)
    assert (stale.status_code, stale.json()) == (401, {"status": "error", "reason": "stale_notification"})
    assert await balance_over_http(user) == 0
    assert [p.status for p in await rows(Payment)] == [PENDING]


async def test_unknown_payments_and_events_without_action_are_acknowledged(
    insert_user, new_payment, notify, fake_provider, rows, caplog
):
    unknown = await notify("nobody-knows", "paid", amount=100)
    assert (unknown.status_code, unknown.json()) == (200, {"status": "ok", "reason": "unknown_payment"})
    assert "unknown payment nobody-knows" in caplog.text
    user = await insert_user()
    await new_payment(user.id, 15_000, provider_payment_id="p-1")
    assert (await notify("p-1", "ignored")).json() == {"status": "ok"}
    assert (await notify("p-1", "pending")).json() == {"status": "ok"}
    assert [p.status for p in await rows(Payment)] == [PENDING]
    failed = await notify("p-1", "failed")
    assert failed.status_code == 200
    assert [p.status for p in await rows(Payment)] == [FAILED]


async def test_an_unconfigured_provider_answers_503_so_the_provider_retries(anon_client):
    response = await anon_client.post(URL, content=b"{}")
    assert (response.status_code, response.json()) == (503, {"status": "error", "reason": "not_configured"})


async def test_unified_health_lists_the_provider_and_its_path(anon_client, provider_plugin):
    unconfigured = (await anon_client.get("/health/unified")).json()["payment_webhooks"]
    assert unconfigured == {"fakepay": {"configured": False, "path": URL}}
    provider_plugin.Configured.provider = provider_plugin.FakeProvider()
    try:
        configured = (await anon_client.get("/health/unified")).json()["payment_webhooks"]
    finally:
        provider_plugin.Configured.provider = None
    assert configured == {"fakepay": {"configured": True, "path": URL}}


class TestConfiguredPath:
    @pytest.fixture(autouse=True)
    def custom_path(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("FAKEPAY_WEBHOOK_PATH", "/pay/fake-hook")

    async def test_the_endpoint_moves_to_the_configured_path(self, anon_client, fake_provider):
        assert (await anon_client.post(URL, content=b"{}")).status_code == 404
        moved = await anon_client.post("/pay/fake-hook", content=b"{}", headers={"X-Fake-Signature": "x"})
        assert (moved.status_code, moved.json()["reason"]) == (401, "invalid_signature")
        health = (await anon_client.get("/health/unified")).json()["payment_webhooks"]
        assert health == {"fakepay": {"configured": True, "path": "/pay/fake-hook"}}


async def test_a_notification_while_the_database_is_down_is_retried_and_nothing_is_lost(
    subsvc_settings, insert_user, new_payment, provider_plugin, fake_provider, api_key, tmp_path
):
    user = await insert_user(balance_kopeks=100)
    await new_payment(user.id, 15_000, provider_payment_id="p-1")
    outage = Outage(subsvc_settings.DATABASE_URL, tmp_path)
    settings = subsvc_settings.model_copy(
        update={"DATABASE_URL": await outage.url(), "DATABASE_TIMEOUT": 1.0}
    )
    service = create_app(settings, plugins=["payments", provider_plugin])
    body, signature = provider_plugin.notification("p-1", "paid", utcnow(), amount=15_000, currency="RUB")
    headers = {"X-Fake-Signature": signature}
    async with service.router.lifespan_context(service):
        transport = httpx2.ASGITransport(app=service)
        async with httpx2.AsyncClient(transport=transport, base_url="http://t") as http:
            down = await http.post(URL, content=body, headers=headers)
            assert down.status_code == 503  # not 2xx: the provider retries later
            await outage.up()
            retried = await http.post(URL, content=body, headers=headers)
            assert (retried.status_code, retried.json()) == (200, {"status": "ok"})
            read = await http.get(f"/users/{user.messenger_id}", headers={"X-API-Key": api_key})
            assert read.json()["balance_kopeks"] == 15_100
        await service.state.db.dispose()


async def test_polling_credits_paid_payments_once_and_survives_a_provider_down(
    app, insert_user, cabinet, fake_provider, rows, balance_over_http, change_settings
):
    user = await insert_user()
    async with cabinet(user.id) as http:
        for amount in (20_000, 30_000, 40_000):
            await topup(http, "fakepay", amount)
    first, second, third = sorted(await rows(Payment), key=lambda p: p.id)
    fake_provider.pay(first.provider_payment_id, 20_000)
    fake_provider.states[second.provider_payment_id] = ProviderStatus("canceled", reason="by payer")
    change_settings(PaymentsSettings, PAYMENTS_POLL_AFTER_SECONDS=3600)
    assert await poll_due(app) == 0  # too young to poll
    assert fake_provider.fetched == 0
    change_settings(PaymentsSettings, PAYMENTS_POLL_AFTER_SECONDS=0)
    fake_provider.down = True
    assert await poll_due(app) == 0
    fake_provider.down = False
    assert await poll_due(app) == 2
    assert await poll_due(app) == 0  # the credited and the canceled are no longer pending
    statuses = {p.id: p.status for p in await rows(Payment)}
    assert statuses == {first.id: SUCCEEDED, second.id: "canceled", third.id: PENDING}
    assert await balance_over_http(user) == 20_000
