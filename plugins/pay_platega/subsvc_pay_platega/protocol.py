"""Platega's protocol as data, without HTTP: the body of a creation, its answer, a
transaction's status as a :class:`ProviderStatus`, and the callback's body.

Platega (``/transaction/process``, ``/transaction/{id}``) writes amounts as JSON numbers in
rubles (read exactly, as ``Decimal``), times left as ``HH:MM:SS`` and statuses in capitals:

=====================================  ===========  ======================================
Platega status                          reported as  what the payment becomes
=====================================  ===========  ======================================
``CREATED``, ``PENDING``, ``INPROGRESS``  pending      unchanged (``NONE`` and unknown too)
``CONFIRMED``                           paid         credited once, if the amount matches
``FAILED``                              failed       failed
``CANCELED``                            canceled     canceled
``EXPIRED``                             expired      expired
``REFUNDED``, ``CHARGEBACKED``          canceled     canceled if never credited; a credited
                                                     payment stays credited (logged)
=====================================  ===========  ======================================
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
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

log = logging.getLogger("subsvc.payments.platega")
NAME = "platega"
STATES: dict[str, ProviderStatus] = {
    "NONE": ProviderStatus("pending"),
    "CREATED": ProviderStatus("pending"),
    "PENDING": ProviderStatus("pending"),
    "INPROGRESS": ProviderStatus("pending"),
    "FAILED": ProviderStatus("failed", reason="platega: FAILED"),
    "CANCELED": ProviderStatus("canceled", reason="platega: CANCELED"),
    "EXPIRED": ProviderStatus("expired", reason="platega: EXPIRED"),
    "REFUNDED": ProviderStatus("canceled", reason="platega: REFUNDED"),
    "CHARGEBACKED": ProviderStatus("canceled", reason="platega: CHARGEBACKED"),
}
"""What each Platega status reports, but ``CONFIRMED`` (paid, with its amount)."""
PAID = "CONFIRMED"
TRANSACTION_ID = re.compile(r"[0-9A-Za-z-]{1,64}")
STATUS = re.compile(r"[A-Z_]{1,40}")
DURATION = re.compile(r"(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})(?:\.\d+)?")


def creation_body(request: ProviderPaymentRequest, code: int) -> dict[str, Any]:
    """The body of ``POST /transaction/process`` for a payment by method ``code``: the amount
    in rubles with two decimals, our payment id as ``payload``, the payer sent back to the
    return URL (``&status=success`` or ``failed`` added) when there is one."""
    body: dict[str, Any] = {
        "paymentMethod": code,
        "paymentDetails": {
            "amount": Decimal(rubles_text(request.amount_kopeks)),
            "currency": request.currency,
        },
        "description": request.description,
        "payload": str(request.payment_id),
    }
    if request.return_url:
        body["return"] = f"{request.return_url}&status=success"
        body["failedUrl"] = f"{request.return_url}&status=failed"
    return body


def expires_at(expires_in: object, now: datetime) -> datetime | None:
    """When a transaction expires, from its ``expiresIn`` (``HH:MM:SS``, ``D.HH:MM:SS``);
    ``None`` when absent or unreadable (the payment keeps our own expiry)."""
    match = DURATION.fullmatch(expires_in.strip()) if isinstance(expires_in, str) else None
    if match is None:
        return None
    days, hours, minutes, seconds = (int(part or 0) for part in match.groups())
    return now + timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)


def transaction_id(value: object) -> str:
    """A transaction id as Platega gives them (a GUID); :class:`ValueError` for anything else,
    which never goes into a URL."""
    text = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""
    if not TRANSACTION_ID.fullmatch(text):
        raise ValueError(f"not a Platega transaction id: {value!r}")
    return text


def created(answer: Mapping[str, Any], now: datetime) -> ProviderPayment:
    """Platega's answer to a creation (``transactionId``, ``redirect``, ``status``,
    ``expiresIn``) as the payment to attach; :class:`ProviderError` when it lacks the id or
    the URL."""
    redirect = answer.get("redirect")
    try:
        found = transaction_id(answer.get("transactionId"))
    except ValueError as error:
        raise ProviderError(f"Platega answered a creation without a usable transactionId: {error}") from None
    if not isinstance(redirect, str) or not redirect.startswith(("https://", "http://")):
        raise ProviderError(f"Platega answered a creation without a payment URL (transaction {found})")
    data = {"platega_status": str(answer.get("status") or "PENDING"), "expires_in": answer.get("expiresIn")}
    return ProviderPayment(found, redirect, expires_at(answer.get("expiresIn"), now), data)


def status_of(answer: Mapping[str, Any]) -> ProviderStatus:
    """``GET /transaction/{id}``'s answer as a :class:`ProviderStatus` (the table above): a
    ``CONFIRMED`` one paid with ``paymentDetails.amount`` in exact kopeks and its currency.
    :class:`ProviderError` for a confirmed answer without a usable amount (never credited)."""
    status = str(answer.get("status") or "NONE").upper()
    details = answer.get("paymentDetails")
    details = details if isinstance(details, Mapping) else {}
    raw = {
        "id": str(answer.get("id")),
        "status": status,
        "amount": str(details.get("amount")),
        "currency": str(details.get("currency")),
        "paymentMethod": str(answer.get("paymentMethod")),
        "payload": str(answer.get("payload")),
    }
    if status != PAID:
        known = STATES.get(status)
        if known is None:
            log.warning(
                "Platega reported transaction %s in an unknown status %s: left pending", raw["id"], status
            )
            known = STATES["NONE"]
        return ProviderStatus(known.state, reason=known.reason, raw=raw)
    currency = details.get("currency")
    try:
        paid = kopeks_of(details.get("amount"))
    except ValueError as error:
        raise ProviderError(
            f"Platega confirmed transaction {raw['id']} without a usable amount: {error}"
        ) from None
    if not isinstance(currency, str) or not currency:
        raise ProviderError(f"Platega confirmed transaction {raw['id']} without a currency")
    return ProviderStatus("paid", paid, currency.upper(), raw=raw)


@dataclass(frozen=True)
class Callback:
    """A callback's body: the transaction, the status it claims (not trusted: the transaction
    is read again; ``UNREADABLE`` unless capitals and ``_``) and whether it is about a
    recurrent subscription (a later issue's)."""

    transaction_id: str
    status: str
    recurrent: bool


def read_callback(body: bytes) -> Callback:
    """Platega's callback body ``{id, amount, currency, status, paymentMethod, payload}``;
    :class:`NotificationRefused` (400) for one that is not that."""
    try:
        data = json.loads(body, parse_float=Decimal)
    except ValueError:
        raise NotificationRefused(400, "invalid_json") from None
    if not isinstance(data, dict):
        raise NotificationRefused(400, "invalid_json")
    status = str(data.get("status") or "").upper()
    status = status if STATUS.fullmatch(status) else "UNREADABLE"
    recurrent = status.startswith("SUBSCRIPTION") or data.get("subscriptionId") is not None
    try:
        found = transaction_id(data.get("id"))
    except ValueError:
        if recurrent:
            return Callback("", status, True)
        raise NotificationRefused(400, "invalid_transaction_id") from None
    return Callback(found, status, recurrent)
