"""The cabinet's Platega method, over HTTP, against the fake Platega: listed from the
settings, a top-up creates a transaction with exact rubles and our payment id, Platega's
failures answer 502 (never 500) and fail the payment, a check and the polling job read the
transaction and credit once."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from subsvc_pay_platega.settings import PlategaSettings
from subsvc_payments.api import CANCELED, FAILED, PENDING, REFUSED_MISMATCH, SUCCEEDED, Payment
from subsvc_payments.jobs import poll_due
from subsvc_payments.settings import PaymentsSettings
from subsvc_payments.testing import topup

from subsvc.db import utcnow

METHODS_URL = "/cabinet/balance/payment-methods"
TOPUP_URL = "/cabinet/balance/topup"
PENDING_URL = "/cabinet/balance/pending-payments/platega"
RETURN_URL = "https://cabinet.example/balance/top-up/result"


async def test_the_cabinet_lists_platega_with_its_enabled_codes(insert_user, cabinet):
    user = await insert_user()
    async with cabinet(user.id) as http:
        methods = (await http.get(METHODS_URL)).json()
    assert methods == [
        {
            "id": "platega",
            "name": "Platega",
            "description": "СБП, банковские карты и другие способы через Platega",
            "min_amount_kopeks": 10_000,
            "max_amount_kopeks": 10_000_000,
            "is_available": True,
            "options": [
                {"id": "2", "name": "СБП (QR-код)", "description": None},
                {"id": "11", "name": "Банковская карта (RUB)", "description": None},
            ],
            "quick_amounts": [],
            "open_url_direct": False,
        }
    ]


@pytest.mark.platega_env(
    PLATEGA_METHODS="13,12", PLATEGA_MIN_AMOUNT_KOPEKS=50_000, PLATEGA_MAX_AMOUNT_KOPEKS=90_000
)
async def test_the_codes_and_limits_follow_the_settings(insert_user, cabinet, fake_platega):
    user = await insert_user()
    async with cabinet(user.id) as http:
        (method,) = (await http.get(METHODS_URL)).json()
        assert [option["id"] for option in method["options"]] == ["13", "12"]
        assert (method["min_amount_kopeks"], method["max_amount_kopeks"]) == (50_000, 90_000)
        below = await http.post(TOPUP_URL, json={"amount_kopeks": 49_999, "payment_method": "platega"})
        above = await http.post(TOPUP_URL, json={"amount_kopeks": 90_001, "payment_method": "platega"})
        disabled = await http.post(
            TOPUP_URL, json={"amount_kopeks": 60_000, "payment_method": "platega", "payment_option": "2"}
        )
    assert (below.status_code, below.json()) == (400, {"detail": "Minimum amount is 500.00 RUB"})
    assert (above.status_code, above.json()) == (400, {"detail": "Maximum amount is 900.00 RUB"})
    assert (disabled.status_code, disabled.json()) == (400, {"detail": "Invalid payment option: 2"})
    assert fake_platega.requests == []


@pytest.mark.platega_env(PLATEGA_SECRET="")
async def test_unconfigured_platega_is_not_offered(insert_user, cabinet, anon_client, fake_platega):
    user = await insert_user()
    async with cabinet(user.id) as http:
        assert (await http.get(METHODS_URL)).json() == []
        refused = await http.post(TOPUP_URL, json={"amount_kopeks": 25_000, "payment_method": "platega"})
    assert (refused.status_code, refused.json()) == (400, {"detail": "Invalid or unavailable payment method"})
    callback = await anon_client.post("/webhooks/payments/platega", content=b'{"id": "x"}')
    assert (callback.status_code, callback.json()) == (503, {"status": "error", "reason": "not_configured"})
    health = (await anon_client.get("/health/unified")).json()
    assert health["payment_webhooks"]["platega"] == {
        "configured": False,
        "path": "/webhooks/payments/platega",
    }
    assert fake_platega.requests == []


@pytest.mark.platega_env(PAYMENTS_RETURN_URL=RETURN_URL)
async def test_a_topup_creates_a_transaction_for_exact_rubles_and_our_payment(
    insert_user, cabinet, fake_platega, rows
):
    user = await insert_user()
    async with cabinet(user.id) as http:
        answer = await topup(http, "platega", 25_050, "11")
    [payment] = await rows(Payment)
    [(verb, path, body)] = fake_platega.requests
    assert (verb, path) == ("POST", "/transaction/process")
    assert body == {
        "paymentMethod": 11,
        "paymentDetails": {"amount": Decimal("250.50"), "currency": "RUB"},
        "description": "Пополнение баланса на 250.50 ₽",
        "payload": str(payment.id),
        "return": f"{RETURN_URL}?method=platega&status=success",
        "failedUrl": f"{RETURN_URL}?method=platega&status=failed",
    }
    [transaction] = fake_platega.transactions.values()
    assert (payment.provider, payment.method, payment.provider_payment_id) == (
        "platega",
        "11",
        transaction.id,
    )
    assert (payment.status, payment.amount_kopeks, payment.currency) == (PENDING, 25_050, "RUB")
    assert answer["payment_url"] == f"{fake_platega.url}/pay?id={transaction.id}"
    assert answer["payment_id"] == str(payment.id)
    assert abs(payment.expires_at - (utcnow() + timedelta(minutes=15))) < timedelta(minutes=1)
    assert payment.data["platega_status"] == "PENDING"


async def test_without_an_option_the_first_enabled_code_is_asked(insert_user, cabinet, fake_platega, rows):
    fake_platega.expires_in = None
    user = await insert_user()
    async with cabinet(user.id) as http:
        await topup(http, "platega", 10_000)
    [(_, _, body)] = fake_platega.requests
    assert (body["paymentMethod"], "return" in body) == (2, False)
    [payment] = await rows(Payment)
    assert payment.method == "platega"  # no option chosen: the method id
    # no expiresIn: the payment keeps the payments plugin's own expiry (60 minutes)
    assert abs(payment.expires_at - (utcnow() + timedelta(minutes=60))) < timedelta(minutes=1)


@pytest.mark.parametrize(
    ("failure", "detail"),
    [
        ("wrong_secret", "platega POST /transaction/process: refused (401)"),
        ("status_400", "platega POST /transaction/process: refused (400)"),
        ("status_500", "platega POST /transaction/process: answered 500"),
        ("status_503", "platega POST /transaction/process: answered 503"),
        ("empty_200", "platega POST /transaction/process: answered NoneType, not a JSON object"),
        ("down", "platega POST /transaction/process: unreachable (ConnectError)"),
    ],
)
async def test_platega_failing_a_creation_answers_502_and_fails_the_payment(
    failure, detail, insert_user, cabinet, fake_platega, rows, change_settings, app
):
    if failure == "wrong_secret":
        settings = PlategaSettings.of(app)
        change_settings(PlategaSettings, PLATEGA_SECRET=f"{settings.PLATEGA_SECRET}-old")
    elif failure == "down":
        await fake_platega.server.stop()
    elif failure == "empty_200":
        fake_platega.fail_with(200)
    else:
        fake_platega.fail_with(int(failure.removeprefix("status_")))
    user = await insert_user()
    async with cabinet(user.id) as http:
        response = await http.post(TOPUP_URL, json={"amount_kopeks": 25_000, "payment_method": "platega"})
    assert response.status_code == 502
    assert response.json() == {"detail": f"Payment provider platega failed to create the payment: {detail}"}
    [payment] = await rows(Payment)
    assert (payment.status, payment.provider_payment_id) == (FAILED, None)
    assert payment.failure_reason == f"provider_error: {detail}"


@pytest.mark.platega_env(PLATEGA_CURRENCY="USD")
async def test_a_payment_in_another_currency_than_the_account_is_refused_before_asking(
    insert_user, cabinet, fake_platega, rows
):
    user = await insert_user()
    async with cabinet(user.id) as http:
        response = await http.post(TOPUP_URL, json={"amount_kopeks": 25_000, "payment_method": "platega"})
    assert response.status_code == 502
    assert response.json()["detail"].endswith("Platega takes USD (PLATEGA_CURRENCY), not RUB")
    assert fake_platega.requests == []
    assert [p.status for p in await rows(Payment)] == [FAILED]


async def test_a_check_reads_the_transaction_and_credits_once(
    insert_user, cabinet, fake_platega, reload, balance_over_http, transactions_over_http
):
    user = await insert_user()
    async with cabinet(user.id) as http:
        payment_id = int((await topup(http, "platega", 30_000, "2"))["payment_id"])
        check = f"{PENDING_URL}/{payment_id}/check"
        unchanged = (await http.post(check)).json()
        transaction_id = (await reload(Payment, payment_id)).provider_payment_id
        fake_platega.pay(transaction_id)
        paid = (await http.post(check)).json()
    assert (unchanged["status_changed"], unchanged["new_status"]) == (False, PENDING)
    assert (paid["status_changed"], paid["old_status"], paid["new_status"]) == (True, PENDING, SUCCEEDED)
    assert ("GET", f"/transaction/{transaction_id}", None) in fake_platega.requests
    assert await balance_over_http(user) == 30_000
    [deposit] = await transactions_over_http(user)
    assert (deposit["amount_kopeks"], deposit["external_id"]) == (30_000, transaction_id)
    payment = await reload(Payment, payment_id)
    assert payment.data["paid_notification"]["status"] == "CONFIRMED"
    assert payment.data["paid_notification"]["amount"] == "300.00"


async def test_a_check_of_a_canceled_or_underpaid_transaction_credits_nothing(
    insert_user, cabinet, fake_platega, reload, balance_over_http
):
    user = await insert_user()
    async with cabinet(user.id) as http:
        canceled = int((await topup(http, "platega", 30_000))["payment_id"])
        underpaid = int((await topup(http, "platega", 40_000))["payment_id"])
        fake_platega.cancel((await reload(Payment, canceled)).provider_payment_id)
        fake_platega.pay((await reload(Payment, underpaid)).provider_payment_id, paid_kopeks=39_999)
        for payment_id in (canceled, underpaid):
            assert (await http.post(f"{PENDING_URL}/{payment_id}/check")).status_code == 200
    assert (await reload(Payment, canceled)).status == CANCELED
    refused = await reload(Payment, underpaid)
    assert (refused.status, refused.paid_amount_kopeks) == (REFUSED_MISMATCH, 39_999)
    assert await balance_over_http(user) == 0


async def test_a_check_while_platega_is_down_answers_502_and_changes_nothing(
    insert_user, cabinet, fake_platega, reload
):
    user = await insert_user()
    async with cabinet(user.id) as http:
        payment_id = int((await topup(http, "platega", 30_000))["payment_id"])
        fake_platega.pay((await reload(Payment, payment_id)).provider_payment_id)
        fake_platega.fail_with(503)
        response = await http.post(f"{PENDING_URL}/{payment_id}/check")
    assert response.status_code == 502
    assert (await reload(Payment, payment_id)).status == PENDING


async def test_the_polling_job_credits_confirmed_transactions(
    app, insert_user, cabinet, fake_platega, rows, change_settings, balance_over_http
):
    user = await insert_user()
    async with cabinet(user.id) as http:
        for amount in (20_000, 30_000):
            await topup(http, "platega", amount)
    first, second = sorted(await rows(Payment), key=lambda p: p.id)
    fake_platega.pay(first.provider_payment_id)
    change_settings(PaymentsSettings, PAYMENTS_POLL_AFTER_SECONDS=0)
    assert await poll_due(app) == 1
    statuses = {p.id: p.status for p in await rows(Payment)}
    assert statuses == {first.id: SUCCEEDED, second.id: PENDING}
    assert await balance_over_http(user) == 20_000
