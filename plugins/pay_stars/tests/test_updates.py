"""Reading the messenger's Updates: what concerns our invoices, what is refused as unreadable,
and what a paid update reports to the payments core."""

from __future__ import annotations

import json
from typing import Any

import pytest
from subsvc_pay_stars.invoices import Invoice
from subsvc_pay_stars.updates import CheckoutQuery, Paid, read_update
from subsvc_payments.api import NotificationRefused, ProviderStatus

OURS = "stars-topup:7:250:25000"
PAID = {
    "currency": "XTR",
    "total_amount": 250,
    "invoice_payload": OURS,
    "telegram_payment_charge_id": "stxCharge1",
    "provider_payment_charge_id": "901_5",
}
PAYER = {"id": 901, "is_bot": False, "first_name": "Payer"}
QUERY = {"id": "q-1", "from": PAYER, "currency": "XTR", "total_amount": 250, "invoice_payload": OURS}


def paid_update(**changes: Any) -> dict[str, Any]:
    message = {"message_id": 3, "from": PAYER, "chat": {"id": 901, "type": "private"}, "date": 1}
    return {"update_id": 11, "message": {**message, "successful_payment": {**PAID, **changes}}}


def read(update: Any) -> CheckoutQuery | Paid | None:
    return read_update(json.dumps(update).encode())


@pytest.mark.parametrize(
    ("update", "reason"),
    [
        ([], "invalid_update"),
        ({"message": {}}, "invalid_update_id"),
        ({"update_id": "11"}, "invalid_update_id"),
        (paid_update(total_amount="250"), "invalid_total_amount"),
        (paid_update(total_amount=0), "invalid_total_amount"),
        (paid_update(total_amount=True), "invalid_total_amount"),
        (paid_update(currency=None), "invalid_currency"),
        (paid_update(telegram_payment_charge_id=None), "invalid_telegram_payment_charge_id"),
        (paid_update(invoice_payload=7), "invalid_invoice_payload"),
        ({"update_id": 11, "message": {"successful_payment": PAID}}, "invalid_from"),
        ({"update_id": 12, "pre_checkout_query": {**QUERY, "id": 5}}, "invalid_id"),
        ({"update_id": 12, "pre_checkout_query": {**QUERY, "total_amount": -1}}, "invalid_total_amount"),
    ],
)
def test_an_unreadable_update_is_refused_400(update: Any, reason: str):
    with pytest.raises(NotificationRefused) as refused:
        read(update)
    assert (refused.value.status, refused.value.reason) == (400, reason)


def test_a_body_that_is_not_json_is_refused_400():
    with pytest.raises(NotificationRefused) as refused:
        read_update(b"update_id=1")
    assert (refused.value.status, refused.value.reason) == (400, "invalid_json")


@pytest.mark.parametrize(
    "update",
    [
        {"update_id": 1, "message": {"message_id": 1, "from": PAYER, "text": "/start"}},
        {"update_id": 2, "callback_query": {"id": "c", "from": PAYER, "data": "x"}},
        {"update_id": 3, "edited_message": {"message_id": 1, "text": "x"}},
        paid_update(invoice_payload="balance_topup_5_10000_1700000000"),  # another invoice
        {"update_id": 4, "pre_checkout_query": {**QUERY, "invoice_payload": "wheel_spin_5"}},
    ],
)
def test_an_update_that_is_not_about_our_invoices_says_nothing(update: dict[str, Any]):
    assert read(update) is None


@pytest.mark.parametrize(
    ("changes", "status"),
    [
        ({}, ProviderStatus("paid", 25_000, "RUB")),  # the invoice's stars: its amount
        ({"total_amount": 249}, ProviderStatus("paid", 24_900, "RUB")),  # fewer: its share
        ({"total_amount": 500}, ProviderStatus("paid", 50_000, "RUB")),
        ({"currency": "USD", "total_amount": 299}, ProviderStatus("paid", 299, "USD")),  # not stars
    ],
)
def test_a_paid_update_reports_the_invoices_share_in_kopeks(changes: dict[str, Any], status: ProviderStatus):
    paid = read(paid_update(**changes))
    assert isinstance(paid, Paid) and paid.invoice == Invoice(7, 250, 25_000)
    reported = paid.status()
    assert (reported.state, reported.paid_amount_kopeks, reported.currency) == (
        status.state,
        status.paid_amount_kopeks,
        status.currency,
    )
    assert reported.raw == {**PAID, **changes, "update_id": 11, "payer_id": 901}


@pytest.mark.parametrize(
    ("changes", "matches"),
    [({}, True), ({"total_amount": 249}, False), ({"currency": "RUB"}, False)],
)
def test_a_pre_checkout_query_of_ours(changes: dict[str, Any], matches: bool):
    query = read({"update_id": 12, "pre_checkout_query": {**QUERY, **changes}})
    assert isinstance(query, CheckoutQuery)
    assert (query.query_id, query.invoice, query.payer_id) == ("q-1", Invoice(7, 250, 25_000), 901)
    assert query.matches() is matches
