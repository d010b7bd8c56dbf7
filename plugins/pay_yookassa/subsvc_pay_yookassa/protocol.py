"""YooKassa's API v3 as data, no I/O: the body that creates a payment, and what a payment
object (``GET /payments/{id}``, or inside a notification) says, in the payments core's terms.

Amounts are ``{"value": "150.00", "currency": "RUB"}``: exact kopeks both ways, never a float.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from subsvc_payments.api import (
    NotificationRefused,
    ProviderError,
    ProviderPayment,
    ProviderPaymentRequest,
    ProviderStatus,
    kopeks_of,
    rubles_text,
)

NAME = "yookassa"
CARD, SBP = "card", "sbp"
METHOD_TYPES = {CARD: "bank_card", SBP: "sbp"}
"""The cabinet's option → YooKassa's ``payment_method_data.type``."""
PAYMENT_EVENTS = frozenset({"payment.succeeded", "payment.waiting_for_capture", "payment.canceled"})
"""The notifications about a payment's status; other events (refunds, payouts...) change nothing."""
PENDING_STATUSES = frozenset({"pending", "waiting_for_capture"})
DESCRIPTION_LIMIT = 128
PAYMENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TEST_REFUSED = "test_payment_refused"


@dataclass(frozen=True)
class Receipt:
    """The fiscal receipt's settings: where it goes and the item's tax fields."""

    email: str
    vat_code: int
    payment_mode: str
    payment_subject: str


def amount(kopeks: int, currency: str) -> dict[str, str]:
    """``{"value": "150.00", "currency": "RUB"}``."""
    return {"value": rubles_text(kopeks), "currency": currency}


def payment_body(
    request: ProviderPaymentRequest, *, receipt: Receipt | None, save_card: bool
) -> dict[str, Any]:
    """The body of ``POST /payments`` for a top-up (captured at once, paid at a redirect)."""
    option = request.option or CARD
    description = request.description[:DESCRIPTION_LIMIT]
    price = amount(request.amount_kopeks, request.currency)
    body: dict[str, Any] = {
        "amount": price,
        "capture": True,
        "confirmation": {"type": "redirect", "return_url": request.return_url},
        "description": description,
        "metadata": {"payment_id": str(request.payment_id), "user_id": str(request.user_id)},
        "payment_method_data": {"type": METHOD_TYPES[option]},
    }
    if request.return_url is None:
        del body["confirmation"]["return_url"]
    if save_card and option == CARD:
        body["save_payment_method"] = True
    if receipt is not None:
        item = {
            "description": description,
            "quantity": "1.00",
            "amount": price,
            "vat_code": receipt.vat_code,
            "payment_mode": receipt.payment_mode,
            "payment_subject": receipt.payment_subject,
        }
        body["receipt"] = {"customer": {"email": receipt.email}, "items": [item]}
    return body


def _datetime(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def created(answer: Any) -> ProviderPayment:
    """The answer to ``POST /payments``: its id, confirmation URL and ``expires_at`` if any."""
    payment = _object(answer)
    confirmation = payment.get("confirmation")
    url = confirmation.get("confirmation_url") if isinstance(confirmation, Mapping) else None
    if not isinstance(url, str) or not url:
        raise ProviderError(f"YooKassa created payment {payment['id']} without a confirmation URL")
    data = {"yookassa_status": payment.get("status"), "test": bool(payment.get("test"))}
    return ProviderPayment(payment["id"], url, _datetime(payment.get("expires_at")), data)


def _object(answer: Any) -> dict[str, Any]:
    """A payment object: a JSON object with a usable ``id`` and a ``status``."""
    if not isinstance(answer, dict) or not isinstance(answer.get("status"), str):
        raise ProviderError("YooKassa answered something that is not a payment")
    if not isinstance(answer.get("id"), str) or not PAYMENT_ID.match(answer["id"]):
        raise ProviderError("YooKassa answered a payment without a usable id")
    return answer


def status_of(answer: Any, *, test_mode: bool) -> ProviderStatus:
    """What a payment object says: ``pending`` / ``waiting_for_capture`` → pending;
    ``succeeded`` and ``paid`` → paid with its ``amount`` (exact kopeks and currency;
    ``income_amount``, after YooKassa's fee, stays in ``raw``); ``canceled`` → canceled with
    ``cancellation_details``. A test payment (``test: true``) paid while test mode is off is
    not paid: failed, ``test_payment_refused``. Anything else is still pending."""
    payment = _object(answer)
    status = payment["status"]
    if status == "succeeded" and payment.get("paid") is True:
        if payment.get("test") is True and not test_mode:
            return ProviderStatus("failed", reason=f"{TEST_REFUSED}: YOOKASSA_TEST_MODE is off", raw=payment)
        kopeks, currency = _paid_amount(payment)
        return ProviderStatus("paid", kopeks, currency, raw=payment)
    if status == "canceled":
        details = payment.get("cancellation_details")
        details = details if isinstance(details, Mapping) else {}
        reason = ": ".join(str(details[key]) for key in ("party", "reason") if details.get(key))
        return ProviderStatus("canceled", reason=reason or None, raw=payment)
    return ProviderStatus("pending", raw=payment)


def _paid_amount(payment: Mapping[str, Any]) -> tuple[int, str]:
    """The payment's ``amount`` as exact kopeks and its currency (:class:`ProviderError` if
    unreadable: nothing is credited on a guess)."""
    paid = payment.get("amount")
    value = paid.get("value") if isinstance(paid, Mapping) else None
    currency = paid.get("currency") if isinstance(paid, Mapping) else None
    try:
        kopeks = kopeks_of(value)
    except ValueError:
        kopeks = None
    if kopeks is None or kopeks <= 0 or not isinstance(currency, str) or not currency:
        raise ProviderError(f"YooKassa reported payment {payment['id']} paid without a readable amount")
    return kopeks, currency


def notified_payment(body: bytes) -> str | None:
    """The payment id a notification names, for an event about a payment's status; ``None``
    for other events. Its content is never trusted beyond that: the payment is fetched.
    Raises :class:`NotificationRefused` (400) for a body that is not a notification."""
    try:
        notice = json.loads(body)
    except ValueError:
        raise NotificationRefused(400, "invalid_json") from None
    event = notice.get("event") if isinstance(notice, dict) else None
    if not isinstance(event, str) or notice.get("type") != "notification":
        raise NotificationRefused(400, "missing_event")
    if event not in PAYMENT_EVENTS:
        return None
    payment = notice.get("object")
    payment_id = payment.get("id") if isinstance(payment, dict) else None
    if not isinstance(payment_id, str) or not PAYMENT_ID.match(payment_id):
        raise NotificationRefused(400, "missing_payment_id")
    return payment_id


def saved_card(payment: Mapping[str, Any]) -> dict[str, Any] | None:
    """The saved payment method of a paid payment object (``payment_method.saved``), as a
    saved card's columns; ``None`` when nothing was saved."""
    method = payment.get("payment_method")
    if not isinstance(method, Mapping) or method.get("saved") is not True:
        return None
    method_id, method_type = method.get("id"), method.get("type")
    if not isinstance(method_id, str) or not isinstance(method_type, str):
        return None
    card = method.get("card")
    card = card if isinstance(card, Mapping) else {}

    def text(value: Any, limit: int) -> str | None:
        return value[:limit] if isinstance(value, str) and value else None

    return {
        "payment_method_id": method_id[:64],
        "method_type": method_type[:32],
        "card_last4": text(card.get("last4"), 4),
        "card_type": text(card.get("card_type"), 32),
        "title": text(method.get("title"), 255),
    }
