"""The messenger's Updates as the Bot API sends them (JSON), read for what concerns a Stars
invoice of ours: a ``pre_checkout_query`` (the payer confirms; the bot must answer it) or a
message carrying ``successful_payment`` (the payer has paid). Anything else says nothing to us.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from subsvc_payments.api import NotificationRefused, ProviderStatus

from subsvc_pay_stars.invoices import CURRENCY, Invoice

RUB = "RUB"


@dataclass(frozen=True)
class CheckoutQuery:
    """A payer about to pay one of our invoices: ``query_id`` is answered ok or not."""

    query_id: str
    invoice: Invoice
    payer_id: int
    currency: str
    total_amount: int

    def matches(self) -> bool:
        """It asks the invoice's stars, in stars."""
        return (self.currency, self.total_amount) == (CURRENCY, self.invoice.stars)


@dataclass(frozen=True)
class Paid:
    """A payer paid ``total_amount`` in ``currency`` for one of our invoices; ``raw`` is the
    ``successful_payment`` with the update's id and the payer (kept in the payment's data)."""

    invoice: Invoice
    currency: str
    total_amount: int
    raw: dict[str, Any]

    def status(self) -> ProviderStatus:
        """What it reports to the payments core: paid in stars, the invoice's share of kopeks
        (its whole amount for its own stars, so another number of stars is a mismatch the core
        records and refuses); paid in another currency, that amount in that currency (refused
        likewise)."""
        if self.currency == CURRENCY:
            return ProviderStatus("paid", self.invoice.worth(self.total_amount), RUB, raw=self.raw)
        return ProviderStatus("paid", self.total_amount, self.currency, raw=self.raw)


def _refused(reason: str) -> NotificationRefused:
    return NotificationRefused(400, reason)


def _field(data: dict[str, Any], name: str, kind: type) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise _refused(f"invalid_{name}")
    return value


def _payer(data: dict[str, Any]) -> int:
    payer = data.get("from")
    if not isinstance(payer, dict):
        raise _refused("invalid_from")
    payer_id: int = _field(payer, "id", int)
    return payer_id


def _amount(data: dict[str, Any]) -> int:
    total: int = _field(data, "total_amount", int)
    if total <= 0:
        raise _refused("invalid_total_amount")
    return total


def read_update(body: bytes) -> CheckoutQuery | Paid | None:
    """What an Update says of our invoices; ``None`` for any other update (a message, another
    bot's invoice). Raises :class:`NotificationRefused` (400) for a body that is not an Update
    or a payment part missing a field."""
    try:
        update = json.loads(body)
    except ValueError:
        raise _refused("invalid_json") from None
    if not isinstance(update, dict):
        raise _refused("invalid_update")
    update_id: int = _field(update, "update_id", int)
    query = update.get("pre_checkout_query")
    if isinstance(query, dict):
        invoice = Invoice.parse(_field(query, "invoice_payload", str))
        if invoice is None:
            return None
        query_id: str = _field(query, "id", str)
        return CheckoutQuery(query_id, invoice, _payer(query), _field(query, "currency", str), _amount(query))
    message = update.get("message")
    paid = message.get("successful_payment") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not isinstance(paid, dict):
        return None
    invoice = Invoice.parse(_field(paid, "invoice_payload", str))
    if invoice is None:
        return None
    _field(paid, "telegram_payment_charge_id", str)
    raw = {**paid, "update_id": update_id, "payer_id": _payer(message)}
    return Paid(invoice, _field(paid, "currency", str), _amount(paid), raw)
