"""The cabinet's side through CryptoBot: the payment method and its limits, a top-up creating
a fiat invoice in rubles at the fake Crypto Pay API, a Crypto Pay that refuses or is down
answering 502 (never 500), 400 while unconfigured; a check and the polling job reading the
invoice with getInvoices."""

from __future__ import annotations

from datetime import timedelta

import pytest
from subsvc_payments.api import EXPIRED, FAILED, PENDING, SUCCEEDED, Payment

from subsvc.services import services
from subsvc.testing import parse_utc

TOPUP = "/cabinet/balance/topup"
PENDING_URL = "/cabinet/balance/pending-payments"


async def test_the_method_is_offered_with_its_limits(insert_user, cabinet):
    user = await insert_user()
    async with cabinet(user.id) as http:
        response = await http.get("/cabinet/balance/payment-methods")
    assert response.status_code == 200
    [method] = response.json()
    assert method == {
        "id": "cryptobot",
        "name": "CryptoBot",
        "description": "Криптовалюта через CryptoBot: счёт в рублях",
        "min_amount_kopeks": 10_000,
        "max_amount_kopeks": 10_000_000,
        "is_available": True,
        "options": None,
        "quick_amounts": [],
        "open_url_direct": False,
    }


@pytest.mark.cryptobot_env(CRYPTOBOT_ACCEPTED_ASSETS="USDT,TON")
async def test_the_description_names_the_assets_when_limited(insert_user, cabinet):
    user = await insert_user()
    async with cabinet(user.id) as http:
        [method] = (await http.get("/cabinet/balance/payment-methods")).json()
    assert method["description"] == "Криптовалюта через CryptoBot: счёт в рублях, оплата в USDT, TON"


async def test_a_top_up_is_a_fiat_invoice_of_the_amount_asked(top_up, cryptobot_env, rows):
    paid = await top_up(25_050)
    [params] = [params for method, params in cryptobot_env.calls if method == "createInvoice"]
    assert params == {
        "currency_type": "fiat",
        "fiat": "RUB",
        "amount": "250.50",
        "description": "Пополнение баланса на 250.50 ₽",
        "payload": str(paid.payment_id),
        "expires_in": 3600,
        "allow_comments": False,
    }
    invoice = cryptobot_env.invoices[paid.invoice_id]
    assert paid.answer["payment_url"] == invoice["bot_invoice_url"]
    assert (paid.answer["amount_kopeks"], paid.answer["status"]) == (25_050, PENDING)
    [payment] = await rows(Payment)
    assert (payment.provider, payment.method, payment.provider_payment_id, payment.amount_kopeks) == (
        "cryptobot",
        "cryptobot",
        str(paid.invoice_id),
        25_050,
    )
    assert payment.expires_at == parse_utc(invoice["expiration_date"].replace("Z", "+00:00"))
    assert parse_utc(paid.answer["expires_at"]) == payment.expires_at
    assert payment.data == {
        "invoice_id": paid.invoice_id,
        "hash": invoice["hash"],
        "currency_type": "fiat",
        "fiat": "RUB",
        "amount": "250.50",
        "accepted_assets": invoice["accepted_assets"],
        "expiration_date": invoice["expiration_date"],
        "mini_app_invoice_url": invoice["mini_app_invoice_url"],
        "web_app_invoice_url": invoice["web_app_invoice_url"],
        "payment_url": invoice["bot_invoice_url"],
    }


@pytest.mark.cryptobot_env(
    CRYPTOBOT_ACCEPTED_ASSETS="usdt,TON",
    CRYPTOBOT_INVOICE_EXPIRES_SECONDS="900",
    PAYMENTS_RETURN_URL="https://cabinet.example/balance/top-up/result",
)
async def test_assets_expiry_and_the_return_button_follow_the_settings(top_up, cryptobot_env, rows):
    paid = await top_up(25_000)
    [params] = [params for method, params in cryptobot_env.calls if method == "createInvoice"]
    assert (params["accepted_assets"], params["expires_in"]) == ("USDT,TON", 900)
    assert (params["paid_btn_name"], params["paid_btn_url"]) == (
        "callback",
        "https://cabinet.example/balance/top-up/result?method=cryptobot",
    )
    [payment] = await rows(Payment)
    assert payment.data["accepted_assets"] == ["USDT", "TON"]
    assert payment.expires_at - payment.created_at < timedelta(seconds=901)
    assert cryptobot_env.invoices[paid.invoice_id]["paid_btn_name"] == "callback"


@pytest.mark.cryptobot_env(CRYPTOBOT_MIN_AMOUNT_KOPEKS="50000", CRYPTOBOT_MAX_AMOUNT_KOPEKS="100000")
@pytest.mark.parametrize(
    ("amount", "detail"),
    [(49_999, "Minimum amount is 500.00 RUB"), (100_001, "Maximum amount is 1000.00 RUB")],
)
async def test_the_limits_follow_the_settings(amount, detail, insert_user, cabinet, cryptobot_env, rows):
    user = await insert_user()
    async with cabinet(user.id) as http:
        response = await http.post(TOPUP, json={"amount_kopeks": amount, "payment_method": "cryptobot"})
    assert (response.status_code, response.json()) == (400, {"detail": detail})
    assert cryptobot_env.calls == [] and await rows(Payment) == []


@pytest.mark.cryptobot_env(CRYPTOBOT_API_TOKEN="")
async def test_unconfigured_there_is_no_method(insert_user, cabinet, cryptobot_env, rows):
    user = await insert_user()
    async with cabinet(user.id) as http:
        methods = await http.get("/cabinet/balance/payment-methods")
        response = await http.post(TOPUP, json={"amount_kopeks": 25_000, "payment_method": "cryptobot"})
    assert (methods.status_code, methods.json()) == (200, [])
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "Invalid or unavailable payment method"},
    )
    assert cryptobot_env.calls == [] and await rows(Payment) == []


async def _down(fake):
    await fake.down()


@pytest.mark.parametrize(
    ("breakage", "detail"),
    [
        (lambda fake: fake.fail_with(500), "cryptobot POST /createInvoice: answered 500"),
        (lambda fake: fake.fail_with(400), "CryptoBot refused createInvoice: 400 FAILING"),
        (lambda fake: fake.fail_with(200), "CryptoBot answered createInvoice without a result: FAILING"),
        (
            lambda fake: setattr(fake, "token", "1:rotated"),
            "CryptoBot refused createInvoice: 401 UNAUTHORIZED",
        ),
        (_down, "cryptobot POST /createInvoice: unreachable (ConnectError)"),
    ],
    ids=["5xx", "4xx", "ok-false", "token-revoked", "down"],
)
async def test_a_crypto_pay_failure_answers_502_and_fails_the_payment(
    breakage, detail, insert_user, cabinet, cryptobot_env, rows
):
    user = await insert_user()
    outcome = breakage(cryptobot_env)
    if outcome is not None:
        await outcome
    async with cabinet(user.id) as http:
        response = await http.post(TOPUP, json={"amount_kopeks": 25_000, "payment_method": "cryptobot"})
    assert response.status_code == 502, response.text
    assert response.json() == {"detail": f"Payment provider cryptobot failed to create the payment: {detail}"}
    [payment] = await rows(Payment)
    assert (payment.status, payment.provider_payment_id) == (FAILED, None)
    assert payment.failure_reason == f"provider_error: {detail}"


@pytest.mark.cryptobot_env(CRYPTOBOT_TIMEOUT_SECONDS="0.2")
async def test_no_answer_in_time_answers_502(insert_user, cabinet, cryptobot_env, rows):
    cryptobot_env.stalled = True
    user = await insert_user()
    async with cabinet(user.id) as http:
        response = await http.post(TOPUP, json={"amount_kopeks": 25_000, "payment_method": "cryptobot"})
    assert response.status_code == 502, response.text
    assert response.json()["detail"].endswith("cryptobot POST /createInvoice: no answer in time")
    assert [p.status for p in await rows(Payment)] == [FAILED]


async def test_an_answer_without_an_invoice_url_answers_502(insert_user, cabinet, cryptobot_env, rows):
    cryptobot_env.strip_from_answers = {"bot_invoice_url"}
    user = await insert_user()
    async with cabinet(user.id) as http:
        response = await http.post(TOPUP, json={"amount_kopeks": 25_000, "payment_method": "cryptobot"})
    assert response.status_code == 502, response.text
    assert "without a bot_invoice_url" in response.json()["detail"]
    assert [p.status for p in await rows(Payment)] == [FAILED]


async def test_a_check_reads_the_invoice(top_up, cabinet, cryptobot_env, reload, balance_over_http):
    paid, expired = await top_up(25_000), await top_up(30_000)
    cryptobot_env.pay(paid.invoice_id, asset="BTC")
    cryptobot_env.expire(expired.invoice_id)
    async with cabinet(paid.user.id) as http:
        credited = (await http.post(f"{PENDING_URL}/cryptobot/{paid.payment_id}/check")).json()
    async with cabinet(expired.user.id) as http:
        ended = (await http.post(f"{PENDING_URL}/cryptobot/{expired.payment_id}/check")).json()
    assert (credited["status_changed"], credited["new_status"]) == (True, SUCCEEDED)
    assert (ended["status_changed"], ended["new_status"]) == (True, EXPIRED)
    assert await balance_over_http(paid.user) == 25_000
    assert await balance_over_http(expired.user) == 0
    assert (await reload(Payment, paid.payment_id)).data["paid_notification"]["paid_asset"] == "BTC"
    assert (await reload(Payment, expired.payment_id)).failure_reason == "invoice_expired"
    asked = [params for method, params in cryptobot_env.calls if method == "getInvoices"]
    assert asked == [{"invoice_ids": str(paid.invoice_id)}, {"invoice_ids": str(expired.invoice_id)}]


async def test_a_check_while_crypto_pay_is_down_answers_502(top_up, cabinet, cryptobot_env, reload):
    paid = await top_up(25_000)
    cryptobot_env.fail_with(503)
    async with cabinet(paid.user.id) as http:
        response = await http.post(f"{PENDING_URL}/cryptobot/{paid.payment_id}/check")
    assert response.status_code == 502, response.text
    assert (await reload(Payment, paid.payment_id)).status == PENDING


@pytest.mark.cryptobot_env(PAYMENTS_POLL_AFTER_SECONDS="0")
async def test_the_polling_job_credits_a_paid_invoice(app, top_up, cryptobot_env, reload, wait_for):
    """A lost notification: the polling job reads the invoice and credits it once."""
    paid, waiting = await top_up(25_000), await top_up(30_000)
    cryptobot_env.pay(paid.invoice_id)
    await services(app).jobs.enqueue("payments.poll_pending")

    async def credited() -> bool:
        return (await reload(Payment, paid.payment_id)).status == SUCCEEDED

    await wait_for(credited)
    assert (await reload(Payment, waiting.payment_id)).status == PENDING
