"""Platega's callbacks at ``POST /webhooks/payments/platega``: the merchant headers checked
(401 ``unauthorized``), an empty probe acknowledged, an unreadable body 400, and the body
never trusted: the transaction is read again from Platega and its answer applies — a replayed
or lying callback credits nothing, Platega down answers 502 so it retries."""

from __future__ import annotations

import json

import httpx2
import pytest
from subsvc_pay_platega.testing import MERCHANT_ID, SECRET
from subsvc_payments.api import CANCELED, PENDING, SUCCEEDED, Payment
from subsvc_payments.testing import topup

URL = "/webhooks/payments/platega"
OK = {"status": "ok"}
UNAUTHORIZED = {"status": "error", "reason": "unauthorized"}


@pytest.fixture
def pending(insert_user, cabinet, fake_platega, reload):
    """``user, payment = await pending(25_000)``: a user's top-up through Platega, unpaid."""

    async def make(amount_kopeks: int = 25_000):
        user = await insert_user()
        async with cabinet(user.id) as http:
            payment_id = int((await topup(http, "platega", amount_kopeks))["payment_id"])
        fake_platega.requests.clear()
        return user, await reload(Payment, payment_id)

    return make


@pytest.fixture
def callback(anon_client, fake_platega):
    """``await callback(transaction_id, **changes)``: Platega's callback about it now."""

    async def send(transaction_id: str, *, body: bytes | None = None, **options):
        content, headers = fake_platega.callback(transaction_id, **options)
        return await anon_client.post(URL, content=content if body is None else body, headers=headers)

    return send


async def test_a_callback_is_confirmed_by_reading_the_transaction(
    pending, callback, fake_platega, reload, balance_over_http
):
    user, payment = await pending()
    fake_platega.pay(payment.provider_payment_id)
    response = await callback(payment.provider_payment_id)
    assert (response.status_code, response.json()) == (200, OK)
    assert fake_platega.requests == [("GET", f"/transaction/{payment.provider_payment_id}", None)]
    paid = await reload(Payment, payment.id)
    assert (paid.status, paid.paid_amount_kopeks) == (SUCCEEDED, 25_000)
    assert paid.data["paid_notification"]["callback"] == "CONFIRMED"
    assert await balance_over_http(user) == 25_000


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"X-MerchantId": MERCHANT_ID},
        {"X-Secret": SECRET},
        {"X-MerchantId": MERCHANT_ID, "X-Secret": "guessed"},
        {"X-MerchantId": "another-merchant", "X-Secret": SECRET},
        {"X-MerchantId": MERCHANT_ID, "X-Secret": ""},
        {"X-MerchantId": MERCHANT_ID, "X-Secret": SECRET + " "},
        {"X-MerchantId": MERCHANT_ID, "X-Secret": "секрет".encode()},
    ],
    ids=[
        "none",
        "no-secret",
        "no-merchant",
        "wrong-secret",
        "wrong-merchant",
        "empty-secret",
        "padded",
        "non-ascii",
    ],
)
async def test_callbacks_without_our_merchant_headers_are_401_and_change_nothing(
    headers, pending, anon_client, fake_platega, reload, balance_over_http
):
    user, payment = await pending()
    fake_platega.pay(payment.provider_payment_id)
    body, _ = fake_platega.callback(payment.provider_payment_id)
    response = await anon_client.post(URL, content=body, headers=headers)
    assert (response.status_code, response.json()) == (401, UNAUTHORIZED)
    assert fake_platega.requests == []  # refused before asking Platega anything
    assert (await reload(Payment, payment.id)).status == PENDING
    assert await balance_over_http(user) == 0


async def test_an_empty_probe_is_acknowledged(anon_client, fake_platega):
    assert (await anon_client.post(URL)).json() == OK
    assert (await anon_client.post(URL, content=b"  ")).json() == OK
    ours = {"X-MerchantId": MERCHANT_ID, "X-Secret": SECRET}
    assert (await anon_client.post(URL, headers=ours)).json() == OK
    foreign = await anon_client.post(URL, headers={"X-MerchantId": MERCHANT_ID, "X-Secret": "x"})
    assert (foreign.status_code, foreign.json()) == (401, UNAUTHORIZED)
    assert fake_platega.requests == []


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"{not json", "invalid_json"),
        (b"[]", "invalid_json"),
        (b'{"status": "CONFIRMED", "amount": 250.00}', "invalid_transaction_id"),
        (b'{"id": "../../transaction/process", "status": "CONFIRMED"}', "invalid_transaction_id"),
    ],
)
async def test_an_unreadable_callback_is_400(body, reason, pending, callback, fake_platega, reload):
    _, payment = await pending()
    response = await callback(payment.provider_payment_id, body=body)
    assert (response.status_code, response.json()) == (400, {"status": "error", "reason": reason})
    assert fake_platega.requests == []


async def test_a_replayed_confirmation_of_a_pending_transaction_credits_nothing(
    pending, callback, fake_platega, reload, balance_over_http
):
    user, payment = await pending()
    for _ in range(3):  # captured once, replayed: the merchant headers are right, the claim is not
        response = await callback(payment.provider_payment_id, status="CONFIRMED")
        assert (response.status_code, response.json()) == (200, OK)
    assert (await reload(Payment, payment.id)).status == PENDING
    assert await balance_over_http(user) == 0
    assert len(fake_platega.requests) == 3


async def test_the_api_answer_wins_over_the_callback_body(
    pending, callback, fake_platega, reload, balance_over_http
):
    user, payment = await pending(25_000)
    fake_platega.pay(payment.provider_payment_id)
    lying = json.dumps({"id": payment.provider_payment_id, "amount": 9_999_999.00, "status": "CANCELED"})
    response = await callback(payment.provider_payment_id, body=lying.encode())
    assert (response.status_code, response.json()) == (200, OK)
    credited = await reload(Payment, payment.id)
    assert (credited.status, credited.paid_amount_kopeks) == (SUCCEEDED, 25_000)
    assert await balance_over_http(user) == 25_000


async def test_a_canceled_transaction_cancels_the_payment(pending, callback, fake_platega, reload):
    _, payment = await pending()
    fake_platega.cancel(payment.provider_payment_id)
    assert (await callback(payment.provider_payment_id)).json() == OK
    canceled = await reload(Payment, payment.id)
    assert (canceled.status, canceled.failure_reason) == (CANCELED, "platega: CANCELED")


async def test_platega_down_while_confirming_answers_502_and_its_retry_credits(
    pending, callback, fake_platega, reload, balance_over_http
):
    user, payment = await pending()
    fake_platega.pay(payment.provider_payment_id)
    delivery = fake_platega.callback(payment.provider_payment_id)
    for failure in ("503", "down"):
        if failure == "down":
            fake_platega.fail_with(None)
            await fake_platega.server.stop()
        else:
            fake_platega.fail_with(503)
        response = await callback(payment.provider_payment_id, body=delivery[0])
        assert response.status_code == 502, response.text
        assert (await reload(Payment, payment.id)).status == PENDING
    await fake_platega.server.start()
    assert (await callback(payment.provider_payment_id)).json() == OK
    assert (await reload(Payment, payment.id)).status == SUCCEEDED
    assert await balance_over_http(user) == 25_000


async def test_recurrent_subscription_callbacks_are_acknowledged_and_logged(
    callback, pending, fake_platega, caplog
):
    _, payment = await pending()
    body = {"id": payment.provider_payment_id, "status": "SUBSCRIPTION_CHARGED", "subscriptionId": "sub-1"}
    response = await callback(payment.provider_payment_id, body=json.dumps(body).encode())
    assert (response.status_code, response.json()) == (200, OK)
    assert "recurrent subscription callback 'SUBSCRIPTION_CHARGED'" in caplog.text
    assert fake_platega.requests == []


async def test_transactions_we_or_platega_do_not_know_are_acknowledged_and_logged(
    anon_client, callback, fake_platega, caplog
):
    fake_platega.transactions.clear()
    ours = {"X-MerchantId": MERCHANT_ID, "X-Secret": SECRET}
    unknown_at_platega = await anon_client.post(
        URL, content=b'{"id": "no-such-tx", "status": "CONFIRMED"}', headers=ours
    )
    assert (unknown_at_platega.status_code, unknown_at_platega.json()) == (200, OK)
    assert "transaction no-such-tx, which it does not know" in caplog.text
    # a transaction of the merchant that is no payment of ours (made elsewhere)
    body = {"paymentMethod": 2, "paymentDetails": {"amount": 100, "currency": "RUB"}}
    async with httpx2.AsyncClient(base_url=fake_platega.url, headers=ours) as platega:
        transaction_id = (await platega.post("/transaction/process", json=body)).json()["transactionId"]
    fake_platega.pay(transaction_id)
    foreign = await callback(transaction_id)
    assert (foreign.status_code, foreign.json()) == (200, {"status": "ok", "reason": "unknown_payment"})


@pytest.mark.platega_env(PLATEGA_WEBHOOK_PATH="/platega-webhook")
async def test_the_callback_path_follows_its_setting(anon_client, pending, fake_platega, reload):
    _, payment = await pending()
    fake_platega.pay(payment.provider_payment_id)
    body, headers = fake_platega.callback(payment.provider_payment_id)
    assert (await anon_client.post(URL, content=body, headers=headers)).status_code == 404
    moved = await anon_client.post("/platega-webhook", content=body, headers=headers)
    assert (moved.status_code, moved.json()) == (200, OK)
    assert (await reload(Payment, payment.id)).status == SUCCEEDED
    health = (await anon_client.get("/health/unified")).json()
    assert health["payment_webhooks"]["platega"] == {"configured": True, "path": "/platega-webhook"}
