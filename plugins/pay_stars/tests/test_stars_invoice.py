"""`POST /cabinet/balance/stars-invoice`: a payment of the normalised amount and its invoice
link made at the (fake) Bot API; its refusals; the messenger failing answers 502, never 500."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from subsvc_payments.api import FAILED, PENDING, Payment

from subsvc.testing_messenger import FakeBotAPI

INVOICE = "/cabinet/balance/stars-invoice"
METHODS = "/cabinet/balance/payment-methods"


@pytest.mark.stars_env(STARS_RATE_RUB="1.79")
async def test_an_invoice_for_the_normalised_amount(http, user, fake_bot_api: FakeBotAPI, rows):
    response = await http.post(INVOICE, json={"amount_kopeks": 10_000})

    assert response.status_code == 200, response.text
    (payment,) = await rows(Payment, user_id=user.id)
    (link,) = fake_bot_api.invoices
    assert response.json() == {"invoice_url": link, "stars_amount": 56, "amount_kopeks": 10_024}
    payload = f"stars-topup:{payment.id}:56:10024"
    assert (payment.provider, payment.method, payment.provider_payment_id) == (
        "messenger_stars",
        "messenger_stars",
        payload,
    )
    assert (payment.status, payment.amount_kopeks, payment.currency) == (PENDING, 10_024, "RUB")
    assert payment.data == {"stars": 56, "stars_rate_rub": "1.79", "payment_url": link}
    (call,) = fake_bot_api.calls_of("createInvoiceLink")
    assert call.params == {
        "title": "Пополнение баланса",
        "description": "Пополнение баланса на 100.24 ₽",
        "payload": payload,
        "provider_token": "",
        "currency": "XTR",
        "prices": [{"label": "Пополнение баланса", "amount": 56}],
    }


@pytest.mark.parametrize(
    ("amount", "stars", "normalized"),
    [(100, 1, 130), (10_000, 77, 10_010), (195, 2, 260), (1_000_000, 7_692, 999_960)],
)
@pytest.mark.stars_env(STARS_RATE_RUB="1.3")
async def test_stars_are_rounded_half_up_and_the_amount_normalised(http, amount, stars, normalized):
    response = await http.post(INVOICE, json={"amount_kopeks": amount})
    assert response.status_code == 200, response.text
    assert (response.json()["stars_amount"], response.json()["amount_kopeks"]) == (stars, normalized)


@pytest.mark.parametrize(
    ("amount", "status", "detail"),
    [
        (99, 422, None),
        (2_000_000_001, 422, None),
        (1_000_001, 400, "Maximum amount is 10,000.00 RUB"),
    ],
)
async def test_the_amount_is_refused_outside_the_limits(http, rows, amount, status, detail):
    response = await http.post(INVOICE, json={"amount_kopeks": amount})
    assert response.status_code == status, response.text
    if detail is not None:
        assert response.json() == {"detail": detail}
    assert await rows(Payment) == []


@pytest.mark.stars_env(STARS_MIN_AMOUNT_KOPEKS="500", STARS_MAX_AMOUNT_KOPEKS="123456789")
async def test_the_limits_come_from_the_settings(http):
    below = await http.post(INVOICE, json={"amount_kopeks": 499})
    above = await http.post(INVOICE, json={"amount_kopeks": 123_456_790})
    assert below.json() == {"detail": "Minimum amount is 5.00 RUB"}
    assert above.json() == {"detail": "Maximum amount is 1,234,567.89 RUB"}


def without_bot_token(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app.state, "settings", app.state.settings.model_copy(update={"BOT_TOKEN": None}))


@pytest.mark.parametrize(
    "unconfigure",
    [
        pytest.param(None, marks=pytest.mark.stars_env(STARS_ENABLED="false"), id="disabled"),
        pytest.param(None, marks=pytest.mark.stars_env(STARS_WEBHOOK_SECRET=""), id="without-secret"),
        pytest.param(without_bot_token, id="without-bot-token"),
    ],
)
async def test_not_configured_is_400_and_lists_no_method(app, http, rows, monkeypatch, unconfigure):
    if unconfigure is not None:
        unconfigure(app, monkeypatch)
    response = await http.post(INVOICE, json={"amount_kopeks": 10_000})
    methods = await http.get(METHODS)
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "Messenger Stars payments are not enabled"},
    )
    assert (methods.status_code, methods.json()) == (200, [])
    assert await rows(Payment) == []


@pytest.mark.stars_env(STARS_RATE_RUB="1.3", STARS_MIN_AMOUNT_KOPEKS="1000")
async def test_the_method_listed_for_the_cabinet(http):
    response = await http.get(METHODS)
    assert response.status_code == 200
    assert response.json() == [
        {
            "id": "messenger_stars",
            "name": "Stars",
            "description": "Звёзды мессенджера: 1 ⭐ = 1.3 ₽, счёт в целых звёздах (округление до ближайшей)",
            "min_amount_kopeks": 1_000,
            "max_amount_kopeks": 1_000_000,
            "is_available": True,
            "options": None,
            "quick_amounts": [],
            "open_url_direct": False,
        }
    ]


@pytest.mark.parametrize(
    ("status", "description"),
    [(500, "Internal Server Error"), (502, "Bad Gateway"), (400, "Bad Request: STARS_INVOICE_INVALID")],
)
async def test_the_messenger_failing_answers_502_and_fails_the_payment(
    http, user, fake_bot_api: FakeBotAPI, rows, status, description
):
    fake_bot_api.fail("createInvoiceLink", status, description)

    response = await http.post(INVOICE, json={"amount_kopeks": 10_000})

    assert response.status_code == 502, response.text
    assert description in response.json()["detail"]
    assert response.json()["detail"].startswith(
        "Payment provider messenger_stars failed to create the payment"
    )
    (payment,) = await rows(Payment, user_id=user.id)
    assert payment.status == FAILED and description in (payment.failure_reason or "")


async def test_an_unreachable_messenger_answers_502(app, http, rows, monkeypatch):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(app.state.messenger, "base_url", f"http://127.0.0.1:{port}")

    response = await http.post(INVOICE, json={"amount_kopeks": 10_000})

    assert response.status_code == 502, response.text
    assert "ConnectError" in response.json()["detail"]
    assert [payment.status for payment in await rows(Payment)] == [FAILED]


async def test_one_invoice_per_idempotency_key(http, user, fake_bot_api: FakeBotAPI, rows):
    key = {"Idempotency-Key": "stars-1"}
    first = await http.post(INVOICE, json={"amount_kopeks": 10_000}, headers=key)
    again = await http.post(INVOICE, json={"amount_kopeks": 10_000}, headers=key)
    other = await http.post(INVOICE, json={"amount_kopeks": 20_000}, headers=key)

    assert (first.status_code, again.status_code, other.status_code) == (200, 200, 409)
    assert again.json() == first.json()
    assert len(fake_bot_api.calls_of("createInvoiceLink")) == 1
    assert len(await rows(Payment, user_id=user.id)) == 1


async def test_the_administrators_configuration_applies(http, admin, rows):
    method = "/cabinet/admin/payment-methods/messenger_stars"
    limited = await admin.put(method, json={"max_amount_kopeks": 50_000})
    assert limited.status_code == 200, limited.text
    over = await http.post(INVOICE, json={"amount_kopeks": 50_001})
    assert (over.status_code, over.json()) == (400, {"detail": "Maximum amount is 500.00 RUB"})
    assert (await admin.put(method, json={"is_enabled": False})).status_code == 200
    disabled = await http.post(INVOICE, json={"amount_kopeks": 10_000})
    assert (disabled.status_code, disabled.json()) == (
        400,
        {"detail": "Messenger Stars payments are not enabled"},
    )
    assert await rows(Payment) == []
