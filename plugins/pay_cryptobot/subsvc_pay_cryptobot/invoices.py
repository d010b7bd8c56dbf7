"""Crypto Pay invoices and our payments, both ways (no I/O).

A top-up is a **fiat invoice in rubles**: ``currency_type: "fiat"``, ``fiat: "RUB"``,
``amount: "150.00"``. Crypto Pay converts it to the asset the payer picks at payment time, so
the invoice's fiat amount stays what was asked; a paid invoice reports that fiat amount
(credited, exact kopeks) and what was paid for it (``paid_asset``, ``paid_amount``,
``paid_fiat_rate``, kept with the rest of the invoice in the payment's data). Nothing is
converted here, and nothing is ever converted back.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from subsvc_payments.api import (
    ProviderPayment,
    ProviderPaymentRequest,
    ProviderStatus,
    kopeks_of,
    rubles_text,
)

from subsvc_pay_cryptobot.settings import CryptoBotSettings

DESCRIPTION_MAX = 1024
PAID_BUTTON = "callback"
"""The paid-invoice button that opens ``paid_btn_url`` (our return URL)."""
KEPT = ("invoice_id", "hash", "currency_type", "fiat", "amount", "accepted_assets", "expiration_date")
LINKS = ("mini_app_invoice_url", "web_app_invoice_url")


class UnreadableInvoice(ValueError):
    """An invoice (or an update) without what this plugin needs to read it."""


def invoice_params(request: ProviderPaymentRequest, settings: CryptoBotSettings) -> dict[str, Any]:
    """``createInvoice``'s parameters for a top-up: a fiat invoice of the amount asked, our
    payment id as its ``payload``, the return URL behind the paid button."""
    params: dict[str, Any] = {
        "currency_type": "fiat",
        "fiat": request.currency,
        "amount": rubles_text(request.amount_kopeks),
        "description": request.description[:DESCRIPTION_MAX],
        "payload": str(request.payment_id),
        "expires_in": settings.CRYPTOBOT_INVOICE_EXPIRES_SECONDS,
        "allow_comments": False,
    }
    if settings.CRYPTOBOT_ACCEPTED_ASSETS:
        params["accepted_assets"] = ",".join(settings.CRYPTOBOT_ACCEPTED_ASSETS)
    if request.return_url:
        params |= {"paid_btn_name": PAID_BUTTON, "paid_btn_url": request.return_url}
    return params


def parse_time(value: Any) -> datetime:
    """An ISO 8601 time of Crypto Pay (``2024-05-01T12:00:00.000Z``), aware (UTC if naive)."""
    if not isinstance(value, str):
        raise UnreadableInvoice(f"not a time: {value!r}")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise UnreadableInvoice(f"not a time: {value!r}") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def invoice_id(invoice: Any) -> str:
    """The invoice's id as our ``provider_payment_id`` (text)."""
    found = invoice.get("invoice_id") if isinstance(invoice, Mapping) else None
    if isinstance(found, bool) or not isinstance(found, int | str) or not str(found).strip():
        raise UnreadableInvoice("an invoice without an invoice_id")
    return str(found).strip()


def created_payment(invoice: Any) -> ProviderPayment:
    """``createInvoice``'s answer as the provider's payment: its id, ``bot_invoice_url`` to
    pay at, its expiry; the invoice's terms and its other links kept in the payment's data."""
    url = invoice.get("bot_invoice_url") if isinstance(invoice, Mapping) else None
    if not isinstance(url, str) or not url.startswith("http"):
        raise UnreadableInvoice("an invoice without a bot_invoice_url")
    expires = invoice.get("expiration_date")
    data = {key: invoice[key] for key in (*KEPT, *LINKS) if invoice.get(key) is not None}
    return ProviderPayment(
        invoice_id(invoice), url, parse_time(expires) if expires is not None else None, data
    )


def _paid(invoice: Mapping[str, Any]) -> ProviderStatus:
    """A paid invoice: its own amount in its own currency (the fiat for a fiat invoice)."""
    fiat = invoice.get("currency_type") == "fiat"
    currency = invoice.get("fiat") if fiat else invoice.get("asset")
    if not isinstance(currency, str) or not currency:
        raise UnreadableInvoice("a paid invoice without its currency")
    try:
        amount = kopeks_of(invoice.get("amount", ""))
    except ValueError as error:
        raise UnreadableInvoice(f"a paid invoice's amount: {error}") from None
    return ProviderStatus("paid", amount, currency, raw=invoice)


def invoice_status(invoice: Any) -> ProviderStatus:
    """What an invoice says of its payment: ``active`` pending, ``paid`` paid (its fiat
    amount, exact), ``expired`` expired; ``raw`` is the whole invoice."""
    if not isinstance(invoice, Mapping):
        raise UnreadableInvoice("not an invoice")
    status = invoice.get("status")
    if status == "active":
        return ProviderStatus("pending", raw=invoice)
    if status == "paid":
        return _paid(invoice)
    if status == "expired":
        return ProviderStatus("expired", reason="invoice_expired", raw=invoice)
    raise UnreadableInvoice(f"an invoice of status {status!r}")
