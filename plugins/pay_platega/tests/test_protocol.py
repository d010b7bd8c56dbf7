"""Platega's protocol mapping without HTTP, case by case: statuses, amounts and currency,
creation bodies and answers, callback bodies, expiry times, settings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from pydantic import ValidationError
from subsvc_pay_platega.protocol import created, creation_body, expires_at, read_callback, status_of
from subsvc_pay_platega.settings import PlategaSettings
from subsvc_payments.api import NotificationRefused, ProviderError, ProviderPaymentRequest, exact_json

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def answer(status: str, amount: object = Decimal("250.00"), currency: object = "RUB") -> dict[str, object]:
    return {"id": "tx-1", "status": status, "paymentDetails": {"amount": amount, "currency": currency}}


@pytest.mark.parametrize(
    ("status", "state", "reason"),
    [
        ("CREATED", "pending", None),
        ("PENDING", "pending", None),
        ("INPROGRESS", "pending", None),
        ("NONE", "pending", None),
        ("pending", "pending", None),
        ("SOMETHING_NEW", "pending", None),
        ("FAILED", "failed", "platega: FAILED"),
        ("CANCELED", "canceled", "platega: CANCELED"),
        ("EXPIRED", "expired", "platega: EXPIRED"),
        ("REFUNDED", "canceled", "platega: REFUNDED"),
        ("CHARGEBACKED", "canceled", "platega: CHARGEBACKED"),
    ],
)
def test_unpaid_statuses(status, state, reason):
    reported = status_of(answer(status))
    assert (reported.state, reported.reason, reported.paid_amount_kopeks) == (state, reason, None)
    assert reported.raw["status"] == status.upper()


@pytest.mark.parametrize(
    ("amount", "currency", "kopeks", "reported_currency"),
    [
        (Decimal("250.00"), "RUB", 25_000, "RUB"),
        (Decimal("199.99"), "RUB", 19_999, "RUB"),
        (250, "RUB", 25_000, "RUB"),
        ("250.5", "rub", 25_050, "RUB"),
        (Decimal("0.01"), "USD", 1, "USD"),
    ],
)
def test_confirmed_is_paid_with_the_exact_amount_and_currency(amount, currency, kopeks, reported_currency):
    reported = status_of(answer("CONFIRMED", amount, currency))
    assert (reported.state, reported.paid_amount_kopeks, reported.currency) == (
        "paid",
        kopeks,
        reported_currency,
    )
    assert reported.raw == {
        "id": "tx-1",
        "status": "CONFIRMED",
        "amount": str(amount),
        "currency": str(currency),
        "paymentMethod": "None",
        "payload": "None",
    }


@pytest.mark.parametrize(
    "confirmed",
    [
        answer("CONFIRMED", amount=None),
        answer("CONFIRMED", amount=250.0),  # a float: never read as money
        answer("CONFIRMED", amount=Decimal("250.005")),
        answer("CONFIRMED", amount="abc"),
        answer("CONFIRMED", currency=None),
        answer("CONFIRMED", currency=""),
        {"id": "tx-1", "status": "CONFIRMED"},
        {"id": "tx-1", "status": "CONFIRMED", "paymentDetails": "250"},
    ],
)
def test_a_confirmation_without_a_usable_amount_is_an_error_not_a_credit(confirmed):
    with pytest.raises(ProviderError, match="Platega confirmed transaction tx-1"):
        status_of(confirmed)


def request(amount_kopeks: int = 25_050, return_url: str | None = "https://cab.example/r?method=platega"):
    return ProviderPaymentRequest(
        payment_id=42,
        user_id=7,
        method="platega",
        option="11",
        amount_kopeks=amount_kopeks,
        currency="RUB",
        description="Пополнение баланса на 250.50 ₽",
        return_url=return_url,
        idempotence_key="subsvc-payment-42",
    )


def test_the_creation_body_asks_exact_rubles_and_names_our_payment():
    body = creation_body(request(), 11)
    assert exact_json(body) == exact_json(
        {
            "paymentMethod": 11,
            "paymentDetails": {"amount": Decimal("250.50"), "currency": "RUB"},
            "description": "Пополнение баланса на 250.50 ₽",
            "payload": "42",
            "return": "https://cab.example/r?method=platega&status=success",
            "failedUrl": "https://cab.example/r?method=platega&status=failed",
        }
    )
    assert '"amount": 250.50' in exact_json(body)
    assert "return" not in creation_body(request(return_url=None), 2)
    assert exact_json(creation_body(request(1_000_000_00), 2)["paymentDetails"]) == (
        '{"amount": 1000000.00, "currency": "RUB"}'
    )


@pytest.mark.parametrize(
    ("expires_in", "expected"),
    [
        ("00:15:00", NOW + timedelta(minutes=15)),
        ("01:00:30", NOW + timedelta(hours=1, seconds=30)),
        ("1.02:00:00", NOW + timedelta(days=1, hours=2)),
        ("00:10:00.5000000", NOW + timedelta(minutes=10)),
        (None, None),
        ("", None),
        ("15 minutes", None),
        (900, None),
    ],
)
def test_expires_in_is_a_time_left(expires_in, expected):
    assert expires_at(expires_in, NOW) == expected


def test_a_creation_answer_gives_the_transaction_url_and_expiry():
    payment = created(
        {
            "transactionId": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
            "redirect": "https://pay.platega.io/?id=3fa8",
            "status": "PENDING",
            "expiresIn": "00:15:00",
        },
        NOW,
    )
    assert (payment.provider_payment_id, payment.payment_url) == (
        "3fa85f64-5717-4562-b3fc-2c963f66afa6",
        "https://pay.platega.io/?id=3fa8",
    )
    assert payment.expires_at == NOW + timedelta(minutes=15)
    assert payment.data == {"platega_status": "PENDING", "expires_in": "00:15:00"}


@pytest.mark.parametrize(
    ("answer_body", "message"),
    [
        ({"redirect": "https://pay.platega.io/x"}, "without a usable transactionId"),
        (
            {"transactionId": "../admin", "redirect": "https://pay.platega.io/x"},
            "without a usable transactionId",
        ),
        ({"transactionId": True, "redirect": "https://pay.platega.io/x"}, "without a usable transactionId"),
        ({"transactionId": "tx-1"}, "without a payment URL"),
        ({"transactionId": "tx-1", "redirect": "javascript:alert(1)"}, "without a payment URL"),
    ],
)
def test_a_creation_answer_without_id_or_url_is_an_error(answer_body, message):
    with pytest.raises(ProviderError, match=message):
        created(answer_body, NOW)


@pytest.mark.parametrize(
    ("body", "transaction_id", "status", "recurrent"),
    [
        (
            b'{"id": "tx-1", "amount": 250.00, "currency": "RUB", "status": "CONFIRMED", "paymentMethod": 2}',
            "tx-1",
            "CONFIRMED",
            False,
        ),
        (b'{"id": "tx-1", "status": "canceled"}', "tx-1", "CANCELED", False),
        (
            b'{"id": "tx-1", "status": "SUBSCRIPTION_CHARGED", "subscriptionId": "s-1"}',
            "tx-1",
            "SUBSCRIPTION_CHARGED",
            True,
        ),
        (b'{"subscriptionId": "s-1", "status": "CONFIRMED"}', "", "CONFIRMED", True),
        (b'{"status": "SUBSCRIPTION_CANCELED"}', "", "SUBSCRIPTION_CANCELED", True),
        (b'{"id": "tx-1", "status": "PAID\\n<script>"}', "tx-1", "UNREADABLE", False),
        (b'{"id": "tx-1"}', "tx-1", "UNREADABLE", False),
    ],
)
def test_callback_bodies(body, transaction_id, status, recurrent):
    callback = read_callback(body)
    assert (callback.transaction_id, callback.status, callback.recurrent) == (
        transaction_id,
        status,
        recurrent,
    )


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"not json", "invalid_json"),
        (b"[1, 2]", "invalid_json"),
        (b'"tx-1"', "invalid_json"),
        (b'{"status": "CONFIRMED"}', "invalid_transaction_id"),
        (b'{"id": "../../admin", "status": "CONFIRMED"}', "invalid_transaction_id"),
        (b'{"id": {"x": 1}, "status": "CONFIRMED"}', "invalid_transaction_id"),
    ],
)
def test_unreadable_callbacks_are_400(body, reason):
    with pytest.raises(NotificationRefused) as refused:
        read_callback(body)
    assert (refused.value.status, refused.value.reason) == (400, reason)


def settings(**values: object) -> PlategaSettings:
    return PlategaSettings(_env_file=None, **values)


@pytest.mark.parametrize(
    ("values", "configured"),
    [
        ({}, False),
        ({"PLATEGA_MERCHANT_ID": "m"}, False),
        ({"PLATEGA_SECRET": "s"}, False),
        ({"PLATEGA_MERCHANT_ID": "m", "PLATEGA_SECRET": "  "}, False),
        ({"PLATEGA_MERCHANT_ID": "m", "PLATEGA_SECRET": "s"}, True),
    ],
)
def test_configured_only_with_both_credentials(values, configured, monkeypatch):
    for name in ("PLATEGA_MERCHANT_ID", "PLATEGA_SECRET"):
        monkeypatch.delenv(name, raising=False)
    assert settings(**values).configured is configured


@pytest.mark.parametrize(
    ("methods", "parsed"), [("2,11", [2, 11]), ("13, 2 ,2", [13, 2]), ("12", [12]), ([11, 12], [11, 12])]
)
def test_methods_are_a_comma_list_of_known_codes(methods, parsed):
    codes = settings(PLATEGA_METHODS=methods).PLATEGA_METHODS
    assert codes == parsed


@pytest.mark.parametrize(
    "values",
    [
        {"PLATEGA_METHODS": "2,99"},
        {"PLATEGA_METHODS": ""},
        {"PLATEGA_METHODS": "sbp"},
        {"PLATEGA_MIN_AMOUNT_KOPEKS": 50_000, "PLATEGA_MAX_AMOUNT_KOPEKS": 10_000},
        {"PLATEGA_CURRENCY": "rub"},
        {"PLATEGA_WEBHOOK_PATH": "platega"},
        {"PLATEGA_TIMEOUT_SECONDS": 0},
    ],
)
def test_bad_settings_stop_the_start(values):
    with pytest.raises(ValidationError):
        settings(**values)
