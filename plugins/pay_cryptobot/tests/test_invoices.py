"""The protocol mapping, without I/O: a top-up's createInvoice parameters, an invoice's
status as a payment's, createInvoice's answer as the provider's payment, the signature, and
the settings' rules."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError
from subsvc_pay_cryptobot.invoices import (
    UnreadableInvoice,
    created_payment,
    invoice_params,
    invoice_status,
    parse_time,
)
from subsvc_pay_cryptobot.provider import signature
from subsvc_pay_cryptobot.settings import CryptoBotSettings
from subsvc_payments.api import ProviderPaymentRequest

TOKEN = "1234:AAfakeCryptoPayAppTokenForTests"


def _settings(**values: Any) -> CryptoBotSettings:
    return CryptoBotSettings(_env_file=None, CRYPTOBOT_API_TOKEN=TOKEN, **values)


def _request(amount_kopeks: int = 15_000, **values: Any) -> ProviderPaymentRequest:
    fields: dict[str, Any] = {
        "payment_id": 42,
        "user_id": 7,
        "method": "cryptobot",
        "option": None,
        "amount_kopeks": amount_kopeks,
        "currency": "RUB",
        "description": "Пополнение баланса на 150.00 ₽",
        "return_url": None,
        "idempotence_key": "subsvc-payment-42",
    }
    return ProviderPaymentRequest(**(fields | values))


BASE = {
    "currency_type": "fiat",
    "fiat": "RUB",
    "amount": "150.00",
    "description": "Пополнение баланса на 150.00 ₽",
    "payload": "42",
    "expires_in": 3600,
    "allow_comments": False,
}


@pytest.mark.parametrize(
    ("request_", "settings", "expected"),
    [
        (_request(), {}, BASE),
        (_request(1_001), {}, BASE | {"amount": "10.01"}),
        (_request(2_000_000_000), {}, BASE | {"amount": "20000000.00"}),
        (
            _request(),
            {"CRYPTOBOT_ACCEPTED_ASSETS": "usdt, TON,BTC,TON", "CRYPTOBOT_INVOICE_EXPIRES_SECONDS": 900},
            BASE | {"accepted_assets": "USDT,TON,BTC", "expires_in": 900},
        ),
        (
            _request(return_url="https://cabinet.example/balance/top-up/result?method=cryptobot"),
            {},
            BASE
            | {
                "paid_btn_name": "callback",
                "paid_btn_url": "https://cabinet.example/balance/top-up/result?method=cryptobot",
            },
        ),
        (_request(description="x" * 2000), {}, BASE | {"description": "x" * 1024}),
    ],
)
def test_a_top_up_is_a_fiat_invoice_in_rubles(request_, settings, expected):
    assert invoice_params(request_, _settings(**settings)) == expected


PAID = {
    "invoice_id": 1001,
    "status": "paid",
    "currency_type": "fiat",
    "fiat": "RUB",
    "amount": "150.00",
    "paid_asset": "TON",
    "paid_amount": "0.28846154",
    "paid_fiat_rate": "520.00",
}


@pytest.mark.parametrize(
    ("invoice", "state", "amount", "currency", "reason"),
    [
        ({"invoice_id": 1001, "status": "active"}, "pending", None, None, None),
        ({"invoice_id": 1001, "status": "expired"}, "expired", None, None, "invoice_expired"),
        (PAID, "paid", 15_000, "RUB", None),
        (PAID | {"amount": "150"}, "paid", 15_000, "RUB", None),
        (PAID | {"amount": "149.99"}, "paid", 14_999, "RUB", None),
        (PAID | {"fiat": "USD", "amount": "1.57"}, "paid", 157, "USD", None),
        # a crypto invoice is reported in its asset (no conversion here): the core refuses it
        ({**PAID, "currency_type": "crypto", "asset": "USDT", "amount": "1.57"}, "paid", 157, "USDT", None),
    ],
)
def test_an_invoice_status_is_the_payment_status(invoice, state, amount, currency, reason):
    status = invoice_status(invoice)
    assert (status.state, status.paid_amount_kopeks, status.currency, status.reason) == (
        state,
        amount,
        currency,
        reason,
    )
    assert status.raw == invoice  # kept whole: paid_asset, paid_amount, paid_fiat_rate


@pytest.mark.parametrize(
    "invoice",
    [
        None,
        [PAID],
        PAID | {"status": "refunded"},
        {k: v for k, v in PAID.items() if k != "status"},
        PAID | {"amount": "150.005"},  # a fraction of a kopek: never rounded
        PAID | {"amount": 150.0},  # a float: not exact
        PAID | {"amount": None},
        {k: v for k, v in PAID.items() if k != "fiat"},
        {**PAID, "currency_type": "crypto", "asset": "BTC", "amount": "0.00002459"},
    ],
)
def test_an_unreadable_invoice_is_refused(invoice):
    with pytest.raises(UnreadableInvoice):
        invoice_status(invoice)


CREATED = {
    "invoice_id": 1001,
    "hash": "IVabc",
    "currency_type": "fiat",
    "fiat": "RUB",
    "amount": "150",
    "accepted_assets": ["USDT", "TON"],
    "status": "active",
    "bot_invoice_url": "https://t.me/CryptoBot?start=IVabc",
    "mini_app_invoice_url": "https://t.me/CryptoBot/app?startapp=invoice-IVabc",
    "web_app_invoice_url": "https://app.send.tg/invoices/IVabc",
    "expiration_date": "2026-01-02T03:04:05.678Z",
    "description": "Пополнение",
    "payload": "42",
}


def test_the_created_invoice_is_the_provider_payment():
    created = created_payment(CREATED)
    assert (created.provider_payment_id, created.payment_url) == (
        "1001",
        "https://t.me/CryptoBot?start=IVabc",
    )
    assert created.expires_at == datetime(2026, 1, 2, 3, 4, 5, 678_000, tzinfo=UTC)
    kept = {key: value for key, value in CREATED.items() if key not in ("status", "description", "payload")}
    assert created.data == {key: value for key, value in kept.items() if key != "bot_invoice_url"}
    assert created_payment({k: v for k, v in CREATED.items() if k != "expiration_date"}).expires_at is None


@pytest.mark.parametrize(
    "answer",
    [
        {k: v for k, v in CREATED.items() if k != "bot_invoice_url"},
        CREATED | {"bot_invoice_url": "tg://nothing"},
        {k: v for k, v in CREATED.items() if k != "invoice_id"},
        CREATED | {"invoice_id": True},
        CREATED | {"expiration_date": "tomorrow"},
        "ok",
    ],
)
def test_an_unusable_creation_answer_is_refused(answer):
    with pytest.raises(UnreadableInvoice):
        created_payment(answer)


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("2026-01-02T03:04:05.678Z", datetime(2026, 1, 2, 3, 4, 5, 678_000, tzinfo=UTC)),
        ("2026-01-02T06:04:05+03:00", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2026-01-02T03:04:05", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
    ],
)
def test_times_are_aware(text, moment):
    assert parse_time(text) == moment


def test_the_signature_is_an_hmac_keyed_with_the_token_hash():
    # computed apart: key = sha256(token) (openssl dgst -sha256 -binary), then
    # openssl dgst -sha256 -mac HMAC -macopt hexkey:<key> over the body
    body = b'{"update_id":1,"update_type":"invoice_paid"}'
    assert signature(TOKEN, body) == "c8b17b8f3e3ee528ce908589e4a890cf55421708a2afe59ec556068aa7e295dd"


def test_settings_rules():
    assert _settings().configured
    assert not CryptoBotSettings(_env_file=None, CRYPTOBOT_API_TOKEN="  ").configured
    assert not CryptoBotSettings(_env_file=None).configured
    assert _settings(CRYPTOBOT_ACCEPTED_ASSETS="").CRYPTOBOT_ACCEPTED_ASSETS == []
    for wrong in (
        {"CRYPTOBOT_ACCEPTED_ASSETS": "USDT,T O N"},
        {"CRYPTOBOT_MIN_AMOUNT_KOPEKS": 50_000, "CRYPTOBOT_MAX_AMOUNT_KOPEKS": 20_000},
        {"CRYPTOBOT_INVOICE_EXPIRES_SECONDS": 2_678_401},
        {"CRYPTOBOT_API_URL": "pay.crypt.bot/api"},
        {"CRYPTOBOT_WEBHOOK_PATH": "cryptobot-webhook"},
    ):
        with pytest.raises(ValidationError):
            _settings(**wrong)
