"""YooKassa's notifications: taken only from the allowed addresses (403 otherwise), read but
never trusted — the payment is fetched from the API and its status there is what applies, so
a forged or replayed body changes nothing the API does not say; unreadable bodies are 400,
other events and payments YooKassa does not know 200; the API down is a 502 (YooKassa
retries), the plugin unconfigured a 503. The manual check asks the API the same way."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
from subsvc_payments.api import CANCELED, FAILED, PENDING, SUCCEEDED, Payment, ProviderPaymentRequest
from subsvc_payments.testing import topup

from subsvc.services import services
from subsvc.testing import asgi_transport

URL = "/webhooks/payments/yookassa"
AMOUNT = 30_000


@pytest.fixture
def notify(app: Any) -> Callable[..., Awaitable[httpx2.Response]]:
    """``await notify(body, client_ip=...)``: a notification posted as YooKassa posts it."""

    async def post(
        body: bytes, client_ip: str = "127.0.0.1", path: str = URL, **headers: str
    ) -> httpx2.Response:
        transport = asgi_transport(app, client_ip)
        async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as http:
            return await http.post(
                path, content=body, headers={"Content-Type": "application/json", **headers}
            )

    return post


@pytest.fixture
async def paying(insert_user: Any, cabinet: Any, rows: Any) -> tuple[Any, Payment]:
    """A user and the pending payment of their top-up (created at the fake)."""
    user = await insert_user()
    async with cabinet(user.id) as http:
        await topup(http, "yookassa", AMOUNT)
    [payment] = await rows(Payment)
    return user, payment


async def the_payment(reload: Any, payment: Payment) -> Payment:
    found: Payment = await reload(Payment, payment.id)
    return found


async def test_a_paid_payment_is_credited_once_with_what_the_api_reports(
    paying, fake_yookassa, notify, reload, balance_over_http, transactions_over_http
):
    user, payment = paying
    fake_yookassa.pay(payment.provider_payment_id)
    body = fake_yookassa.notification_body(payment.provider_payment_id)
    for _ in range(3):  # YooKassa repeats a notification until it gets a 200
        answer = await notify(body)
        assert (answer.status_code, answer.json()) == (200, {"status": "ok"})
    assert await balance_over_http(user) == AMOUNT
    assert [t["amount_kopeks"] for t in await transactions_over_http(user)] == [AMOUNT]
    paid = await the_payment(reload, payment)
    assert (paid.status, paid.paid_amount_kopeks, paid.currency) == (SUCCEEDED, AMOUNT, "RUB")
    reported = paid.data["paid_notification"]
    assert reported["income_amount"] == {
        "value": "289.50",
        "currency": "RUB",
    }  # after the fee: kept, not credited
    gets = [path for method, path, _, _ in fake_yookassa.requests if method == "GET"]
    assert gets == [f"/v3/payments/{payment.provider_payment_id}"] * 3


async def test_a_forged_body_from_an_allowed_address_changes_nothing_the_api_does_not_say(
    paying, fake_yookassa, notify, reload, balance_over_http
):
    user, payment = paying
    forged = json.loads(fake_yookassa.notification_body(payment.provider_payment_id, "payment.succeeded"))
    forged["object"].update(status="succeeded", paid=True, amount={"value": "300000.00", "currency": "RUB"})
    answer = await notify(json.dumps(forged).encode())
    assert answer.status_code == 200
    assert (await the_payment(reload, payment)).status == PENDING
    assert await balance_over_http(user) == 0
    fake_yookassa.pay(
        payment.provider_payment_id
    )  # paid for real: the forged amount still counts for nothing
    assert (await notify(json.dumps(forged).encode())).status_code == 200
    assert await balance_over_http(user) == AMOUNT


async def test_a_replayed_old_notification_rereads_the_truth(paying, fake_yookassa, notify, reload):
    _, payment = paying
    fake_yookassa.pay(payment.provider_payment_id)
    assert (await notify(fake_yookassa.notification_body(payment.provider_payment_id))).status_code == 200
    stale = fake_yookassa.notification_body(payment.provider_payment_id, "payment.canceled")
    assert (await notify(stale)).status_code == 200
    assert (await the_payment(reload, payment)).status == SUCCEEDED


async def test_a_canceled_payment_ends_canceled_with_yookassas_reason(paying, fake_yookassa, notify, reload):
    _, payment = paying
    fake_yookassa.cancel(payment.provider_payment_id, "permission_revoked", "yoo_kassa")
    assert (await notify(fake_yookassa.notification_body(payment.provider_payment_id))).status_code == 200
    ended = await the_payment(reload, payment)
    assert (ended.status, ended.failure_reason) == (CANCELED, "yoo_kassa: permission_revoked")


@pytest.mark.parametrize("client_ip", ["127.0.0.2", "10.0.0.1", "185.71.76.1"])
async def test_a_sender_outside_the_allowed_sources_is_refused_403(
    paying, fake_yookassa, notify, reload, client_ip
):
    _, payment = paying
    fake_yookassa.pay(payment.provider_payment_id)
    answer = await notify(fake_yookassa.notification_body(payment.provider_payment_id), client_ip)
    assert (answer.status_code, answer.json()) == (403, {"status": "error", "reason": "forbidden_ip"})
    assert (await the_payment(reload, payment)).status == PENDING
    assert not [request for request in fake_yookassa.requests if request[0] == "GET"]  # not even asked


@pytest.mark.yookassa_env(YOOKASSA_ALLOWED_SOURCES="185.71.76.0/27,77.75.156.11")
class TestBehindAProxy:
    @pytest.fixture
    def subsvc_settings_overrides(self, subsvc_settings_overrides):
        return {**subsvc_settings_overrides, "TRUSTED_PROXIES": ["127.0.0.1"]}

    async def test_the_sender_is_the_address_the_trusted_proxy_names(
        self, paying, fake_yookassa, notify, reload
    ):
        _, payment = paying
        fake_yookassa.pay(payment.provider_payment_id)
        body = fake_yookassa.notification_body(payment.provider_payment_id)
        foreign = await notify(body, **{"X-Forwarded-For": "8.8.8.8"})
        assert (foreign.status_code, foreign.json()["reason"]) == (403, "forbidden_ip")
        untrusted_proxy = await notify(body, "10.1.1.1", **{"X-Forwarded-For": "77.75.156.11"})
        assert untrusted_proxy.status_code == 403
        assert (await the_payment(reload, payment)).status == PENDING
        assert (await notify(body, **{"X-Forwarded-For": "77.75.156.11"})).status_code == 200
        assert (await the_payment(reload, payment)).status == SUCCEEDED


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"", "invalid_json"),
        (b"<xml/>", "invalid_json"),
        (b'{"type": "notification", "object": {"id": "x"}}', "missing_event"),
        (b'{"type": "notification", "event": "payment.succeeded", "object": {}}', "missing_payment_id"),
        (
            b'{"type": "notification", "event": "payment.succeeded", "object": {"id": "../payments"}}',
            "missing_payment_id",
        ),
    ],
)
async def test_what_is_not_a_notification_is_refused_400(notify, body, reason):
    answer = await notify(body)
    assert (answer.status_code, answer.json()) == (400, {"status": "error", "reason": reason})


async def test_other_events_and_payments_yookassa_does_not_know_are_acknowledged(
    paying, fake_yookassa, notify, reload, caplog
):
    _, payment = paying
    refund = {
        "type": "notification",
        "event": "refund.succeeded",
        "object": {"id": "rf-1", "payment_id": "x"},
    }
    assert (await notify(json.dumps(refund).encode())).json() == {"status": "ok"}
    unknown = {"type": "notification", "event": "payment.succeeded", "object": {"id": "no-such-payment"}}
    assert (await notify(json.dumps(unknown).encode())).json() == {"status": "ok"}
    assert "no-such-payment, which its API does not know" in caplog.text
    assert (await the_payment(reload, payment)).status == PENDING


async def test_a_payment_of_the_shop_we_have_no_record_of_is_acknowledged_and_logged(
    app, fake_yookassa, notify, caplog
):
    provider = await services(app).plugins.first_result("payments_provider", app=app, method="yookassa")
    made = await provider.create(
        ProviderPaymentRequest(99, 1, "yookassa", None, 10_000, "RUB", "x", "https://r", "k-99")
    )
    fake_yookassa.pay(made.provider_payment_id)
    answer = await notify(fake_yookassa.notification_body(made.provider_payment_id))
    assert (answer.status_code, answer.json()) == (200, {"status": "ok", "reason": "unknown_payment"})
    assert f"unknown payment {made.provider_payment_id}" in caplog.text


async def test_the_api_down_while_confirming_answers_502_and_yookassa_retries(
    paying, fake_yookassa, notify, reload
):
    _, payment = paying
    fake_yookassa.pay(payment.provider_payment_id)
    body = fake_yookassa.notification_body(payment.provider_payment_id)
    await fake_yookassa.down()
    answer = await notify(body)
    assert answer.status_code == 502
    assert (await the_payment(reload, payment)).status == PENDING
    await fake_yookassa.up()
    fake_yookassa.fail_with(503)
    assert (await notify(body)).status_code == 502
    fake_yookassa.fail_with(None)
    assert (await notify(body)).status_code == 200
    assert (await the_payment(reload, payment)).status == SUCCEEDED


async def test_a_test_payment_is_not_credited_unless_test_mode(paying, fake_yookassa, notify, reload, caplog):
    _, payment = paying
    fake_yookassa.payments[payment.provider_payment_id]["test"] = True
    fake_yookassa.pay(payment.provider_payment_id)
    assert (await notify(fake_yookassa.notification_body(payment.provider_payment_id))).status_code == 200
    refused = await the_payment(reload, payment)
    assert (refused.status, refused.transaction_id) == (FAILED, None)
    assert refused.failure_reason == "test_payment_refused: YOOKASSA_TEST_MODE is off"
    assert "test payment" in caplog.text


@pytest.mark.yookassa_env(YOOKASSA_TEST_MODE="true")
async def test_in_test_mode_a_test_payment_is_credited(paying, fake_yookassa, notify, balance_over_http):
    user, payment = paying
    fake_yookassa.payments[payment.provider_payment_id]["test"] = True
    fake_yookassa.pay(payment.provider_payment_id)
    assert (await notify(fake_yookassa.notification_body(payment.provider_payment_id))).status_code == 200
    assert await balance_over_http(user) == AMOUNT


@pytest.mark.yookassa_env(YOOKASSA_SHOP_ID="")
async def test_not_configured_answers_503_so_yookassa_retries(notify, anon_client):
    answer = await notify(b"{}")
    assert (answer.status_code, answer.json()) == (503, {"status": "error", "reason": "not_configured"})
    health = (await anon_client.get("/health/unified")).json()["payment_webhooks"]
    assert health["yookassa"] == {"configured": False, "path": URL}


@pytest.mark.yookassa_env(YOOKASSA_WEBHOOK_PATH="/yookassa-webhook")
async def test_the_endpoint_follows_its_path_setting(paying, fake_yookassa, notify, reload, anon_client):
    health = (await anon_client.get("/health/unified")).json()["payment_webhooks"]
    assert health["yookassa"] == {"configured": True, "path": "/yookassa-webhook"}
    _, payment = paying
    fake_yookassa.pay(payment.provider_payment_id)
    body = fake_yookassa.notification_body(payment.provider_payment_id)
    assert (await notify(body)).status_code == 404
    assert (await notify(body, path="/yookassa-webhook")).status_code == 200
    assert (await the_payment(reload, payment)).status == SUCCEEDED


async def test_the_manual_check_asks_the_api(paying, fake_yookassa, cabinet, reload, balance_over_http):
    user, payment = paying
    check = f"/cabinet/balance/pending-payments/yookassa/{payment.id}/check"
    async with cabinet(user.id) as http:
        unchanged = await http.post(check)
        assert (unchanged.status_code, unchanged.json()["status_changed"]) == (200, False)
        await fake_yookassa.down()
        assert (await http.post(check)).status_code == 502
        await fake_yookassa.up()
        fake_yookassa.pay(payment.provider_payment_id)
        paid = await http.post(check)
    assert (paid.json()["status_changed"], paid.json()["new_status"]) == (True, SUCCEEDED)
    assert await balance_over_http(user) == AMOUNT
