"""YooKassa's protocol as data: the creation body, a payment object's status in the payments
core's terms (exact kopeks), a notification's payment id, the sender's address, a saved card,
and the settings' checks. Table-driven, no I/O."""

from __future__ import annotations

import json
from ipaddress import ip_network
from typing import Any

import pytest
from pydantic import ValidationError
from subsvc_pay_yookassa.protocol import (
    Receipt,
    created,
    notified_payment,
    payment_body,
    saved_card,
    status_of,
)
from subsvc_pay_yookassa.provider import check_source
from subsvc_pay_yookassa.settings import PUBLISHED_SOURCES, YookassaSettings
from subsvc_payments.api import NotificationRefused, ProviderError, ProviderPaymentRequest

PAYMENT_ID = "2e6a8e2c-000f-5000-9000-1f3e5c7a9b11"
RECEIPT = Receipt("payer@example.com", 1, "full_payment", "service")


def request(**changes: Any) -> ProviderPaymentRequest:
    values: dict[str, Any] = {
        "payment_id": 7,
        "user_id": 3,
        "method": "yookassa",
        "option": None,
        "amount_kopeks": 15_000,
        "currency": "RUB",
        "description": "Пополнение баланса на 150.00 ₽",
        "return_url": "https://cabinet.example/result?method=yookassa",
        "idempotence_key": "subsvc-payment-7",
        **changes,
    }
    return ProviderPaymentRequest(**values)


@pytest.mark.parametrize(
    ("changes", "receipt", "save_card", "expected"),
    [
        ({}, None, False, {"method": "bank_card", "value": "150.00", "save": None, "receipt": None}),
        (
            {"option": "card", "amount_kopeks": 1},
            None,
            True,
            {"method": "bank_card", "value": "0.01", "save": True},
        ),
        (
            {"option": "sbp", "amount_kopeks": 123_456_789},
            None,
            True,
            {"method": "sbp", "value": "1234567.89"},
        ),
        ({"amount_kopeks": 10_050}, RECEIPT, False, {"value": "100.50", "receipt": "payer@example.com"}),
        (
            {"description": "x" * 200},
            RECEIPT,
            False,
            {"description": "x" * 128, "receipt": "payer@example.com"},
        ),
        ({"return_url": None}, None, False, {"return_url": None}),
    ],
)
def test_the_creation_body(changes, receipt, save_card, expected):
    body = payment_body(request(**changes), receipt=receipt, save_card=save_card)
    assert body["capture"] is True
    assert body["metadata"] == {"payment_id": "7", "user_id": "3"}
    assert body["confirmation"]["type"] == "redirect"
    assert body["confirmation"].get("return_url") == expected.get("return_url", request().return_url)
    assert body["description"] == expected.get("description", request().description)
    if "method" in expected:
        assert body["payment_method_data"] == {"type": expected["method"]}
    if "value" in expected:
        assert body["amount"] == {"value": expected["value"], "currency": "RUB"}
    assert body.get("save_payment_method") == expected.get("save")
    if expected.get("receipt"):
        item = {
            "description": body["description"],
            "quantity": "1.00",
            "amount": body["amount"],
            "vat_code": 1,
            "payment_mode": "full_payment",
            "payment_subject": "service",
        }
        assert body["receipt"] == {"customer": {"email": expected["receipt"]}, "items": [item]}
    else:
        assert "receipt" not in body


def payment(**changes: Any) -> dict[str, Any]:
    return {
        "id": PAYMENT_ID,
        "status": "pending",
        "paid": False,
        "amount": {"value": "150.00", "currency": "RUB"},
        "test": False,
        **changes,
    }


PAID = {"status": "succeeded", "paid": True, "income_amount": {"value": "144.75", "currency": "RUB"}}


@pytest.mark.parametrize(
    ("changes", "test_mode", "expected"),
    [
        ({}, False, ("pending", None, None, None)),
        ({"status": "waiting_for_capture", "paid": True}, False, ("pending", None, None, None)),
        (PAID, False, ("paid", 15_000, "RUB", None)),
        ({**PAID, "amount": {"value": "0.01", "currency": "RUB"}}, False, ("paid", 1, "RUB", None)),
        (
            {**PAID, "amount": {"value": "99999999.99", "currency": "RUB"}},
            False,
            ("paid", 9_999_999_999, "RUB", None),
        ),
        ({**PAID, "amount": {"value": "10.00", "currency": "USD"}}, False, ("paid", 1000, "USD", None)),
        ({**PAID, "test": True}, True, ("paid", 15_000, "RUB", None)),
        (
            {**PAID, "test": True},
            False,
            ("failed", None, None, "test_payment_refused: YOOKASSA_TEST_MODE is off"),
        ),
        ({"status": "succeeded", "paid": False}, False, ("pending", None, None, None)),
        (
            {
                "status": "canceled",
                "cancellation_details": {"party": "yoo_money", "reason": "expired_on_confirmation"},
            },
            False,
            ("canceled", None, None, "yoo_money: expired_on_confirmation"),
        ),
        ({"status": "canceled"}, False, ("canceled", None, None, None)),
        ({"status": "something_new"}, False, ("pending", None, None, None)),
    ],
)
def test_a_payment_objects_status(changes, test_mode, expected):
    answer = payment(**changes)
    status = status_of(answer, test_mode=test_mode)
    assert (status.state, status.paid_amount_kopeks, status.currency, status.reason) == expected
    assert status.raw == answer  # income_amount and the rest kept as YooKassa said them


@pytest.mark.parametrize(
    "answer",
    [
        payment(**PAID, amount={"value": "150.005", "currency": "RUB"}),
        payment(**PAID, amount={"value": 150.0, "currency": "RUB"}),
        payment(**PAID, amount={"value": "0.00", "currency": "RUB"}),
        payment(**PAID, amount={"value": "abc", "currency": "RUB"}),
        payment(**PAID, amount={"value": "150.00"}),
        payment(**PAID, amount=None),
        payment(id="../../me"),
        payment(id=None),
        payment(status=None),
        [],
        None,
        "ok",
    ],
    ids=str,
)
def test_what_cannot_be_read_is_a_provider_error_never_a_credit(answer):
    with pytest.raises(ProviderError):
        status_of(answer, test_mode=False)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            payment(confirmation={"type": "redirect", "confirmation_url": "https://yoomoney.ru/c?orderId=1"}),
            ("https://yoomoney.ru/c?orderId=1", None),
        ),
        (
            payment(
                confirmation={"type": "redirect", "confirmation_url": "https://yoomoney.ru/c"},
                expires_at="2026-11-28T10:00:00.000Z",
            ),
            ("https://yoomoney.ru/c", "2026-11-28T10:00:00+00:00"),
        ),
    ],
)
def test_a_created_payment(answer, expected):
    made = created(answer)
    assert made.provider_payment_id == PAYMENT_ID
    assert (made.payment_url, made.expires_at and made.expires_at.isoformat()) == expected


@pytest.mark.parametrize("confirmation", [None, {}, {"type": "redirect"}, {"confirmation_url": ""}])
def test_a_created_payment_without_a_confirmation_url_is_a_provider_error(confirmation):
    with pytest.raises(ProviderError, match="without a confirmation URL"):
        created(payment(confirmation=confirmation))


def notice(event: Any = "payment.succeeded", **changes: Any) -> bytes:
    return json.dumps({"type": "notification", "event": event, "object": payment(**changes)}).encode()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (notice(), PAYMENT_ID),
        (notice("payment.waiting_for_capture"), PAYMENT_ID),
        (notice("payment.canceled"), PAYMENT_ID),
        (notice("refund.succeeded"), None),
        (notice("payout.succeeded"), None),
        (notice("payment_method.active"), None),
    ],
)
def test_a_notification_names_a_payment(body, expected):
    assert notified_payment(body) == expected


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"", "invalid_json"),
        (b"{not json", "invalid_json"),
        (b"[]", "missing_event"),
        (json.dumps({"type": "notification", "object": payment()}).encode(), "missing_event"),
        (json.dumps({"event": "payment.succeeded", "object": payment()}).encode(), "missing_event"),
        (notice(event=5), "missing_event"),
        (json.dumps({"type": "notification", "event": "payment.succeeded"}).encode(), "missing_payment_id"),
        (notice(id=None), "missing_payment_id"),
        (notice(id="a/../../b"), "missing_payment_id"),
        (notice(id="x" * 65), "missing_payment_id"),
    ],
)
def test_what_is_not_a_notification_is_refused_400(body, reason):
    with pytest.raises(NotificationRefused) as refused:
        notified_payment(body)
    assert (refused.value.status, refused.value.reason) == (400, reason)


@pytest.mark.parametrize(
    ("client_ip", "allowed", "refused"),
    [
        ("185.71.76.1", PUBLISHED_SOURCES, None),
        ("185.71.77.31", PUBLISHED_SOURCES, None),
        ("77.75.153.127", PUBLISHED_SOURCES, None),
        ("77.75.154.200", PUBLISHED_SOURCES, None),
        ("77.75.156.11", PUBLISHED_SOURCES, None),
        ("77.75.156.35", PUBLISHED_SOURCES, None),
        ("2a02:5180::1", PUBLISHED_SOURCES, None),
        ("::ffff:185.71.76.1", PUBLISHED_SOURCES, None),
        ("::ffff:127.0.0.1", PUBLISHED_SOURCES, "forbidden_ip"),
        ("185.71.76.32", PUBLISHED_SOURCES, "forbidden_ip"),
        ("77.75.156.12", PUBLISHED_SOURCES, "forbidden_ip"),
        ("77.75.154.127", PUBLISHED_SOURCES, "forbidden_ip"),
        ("127.0.0.1", PUBLISHED_SOURCES, "forbidden_ip"),
        ("2a02:5181::1", PUBLISHED_SOURCES, "forbidden_ip"),
        ("127.0.0.1", ["127.0.0.1"], None),
        ("127.0.0.2", ["127.0.0.1"], "forbidden_ip"),
        (None, PUBLISHED_SOURCES, "unknown_ip"),
        ("testclient", PUBLISHED_SOURCES, "unknown_ip"),
    ],
)
def test_the_senders_address(client_ip, allowed, refused):
    networks = YookassaSettings(
        _env_file=None, YOOKASSA_ALLOWED_SOURCES=",".join(allowed)
    ).YOOKASSA_ALLOWED_SOURCES
    if refused is None:
        check_source(client_ip, networks)
        return
    with pytest.raises(NotificationRefused) as error:
        check_source(client_ip, networks)
    assert (error.value.status, error.value.reason) == (403, refused)


CARD = {"first6": "220220", "last4": "4444", "card_type": "Mir", "expiry_month": "12", "expiry_year": "2030"}


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        (
            {"type": "bank_card", "id": "pm-1", "saved": True, "title": "Bank card *4444", "card": CARD},
            {
                "payment_method_id": "pm-1",
                "method_type": "bank_card",
                "card_last4": "4444",
                "card_type": "Mir",
                "title": "Bank card *4444",
            },
        ),
        (
            {"type": "bank_card", "id": "pm-2", "saved": True},
            {"payment_method_id": "pm-2", "method_type": "bank_card", "card_last4": None, "card_type": None}
            | {"title": None},
        ),
        ({"type": "bank_card", "id": "pm-3", "saved": False, "card": CARD}, None),
        ({"type": "sbp", "id": "pm-4"}, None),
        ({"type": "bank_card", "saved": True}, None),
        (None, None),
    ],
)
def test_a_saved_card(method, expected):
    assert saved_card(payment(payment_method=method)) == expected


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"YOOKASSA_ALLOWED_SOURCES": "185.71.76.0/27,not-an-address"}, "not-an-address"),
        ({"YOOKASSA_ALLOWED_SOURCES": "185.71.76.5/27"}, "YOOKASSA_ALLOWED_SOURCES"),
        ({"YOOKASSA_MIN_AMOUNT_KOPEKS": 20_000, "YOOKASSA_MAX_AMOUNT_KOPEKS": 10_000}, "MIN_AMOUNT"),
        ({"YOOKASSA_PAYMENT_MODE": "whatever"}, "YOOKASSA_PAYMENT_MODE"),
        ({"YOOKASSA_VAT_CODE": 13}, "YOOKASSA_VAT_CODE"),
        ({"YOOKASSA_WEBHOOK_PATH": "no-slash"}, "YOOKASSA_WEBHOOK_PATH"),
    ],
)
def test_settings_refuse_what_cannot_work(values, message):
    with pytest.raises(ValidationError, match=message):
        YookassaSettings(_env_file=None, **values)


def test_settings_default_to_the_published_sources_and_not_configured():
    settings = YookassaSettings(_env_file=None, YOOKASSA_ALLOWED_SOURCES="77.75.156.11, 2a02:5180::/32")
    assert [str(network) for network in settings.YOOKASSA_ALLOWED_SOURCES] == [
        "77.75.156.11/32",
        "2a02:5180::/32",
    ]
    default = YookassaSettings(_env_file=None)
    assert [ip_network(source) for source in PUBLISHED_SOURCES] == default.YOOKASSA_ALLOWED_SOURCES
    assert not default.configured
    assert not YookassaSettings(_env_file=None, YOOKASSA_SHOP_ID="1").configured
    assert YookassaSettings(_env_file=None, YOOKASSA_SHOP_ID="1", YOOKASSA_SECRET_KEY="k").configured
