"""The CryptoBot provider: invoices created and read through the Crypto Pay API, and its
signed ``invoice_paid`` updates verified.

An update is ``{"update_id", "update_type", "request_date", "payload": <invoice>}``, signed in
the header ``crypto-pay-api-signature``: the hex HMAC-SHA256 of the raw body keyed with the
SHA-256 of the app's API token. No signature → 401 ``missing_signature``; another → 401
``invalid_signature``; a ``request_date`` outside ``CRYPTOBOT_NOTIFICATION_MAX_AGE_SECONDS`` →
401 ``stale_notification``; a signed body that is not an update → 400. Other update types
say nothing to act on (200)."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from subsvc_payments.api import (
    IncomingNotification,
    Notification,
    NotificationRefused,
    ProviderError,
    ProviderHttp,
    ProviderPayment,
    ProviderPaymentRequest,
    ProviderStatus,
    refuse_stale,
)

from subsvc_pay_cryptobot.client import CryptoPay
from subsvc_pay_cryptobot.invoices import (
    UnreadableInvoice,
    created_payment,
    invoice_id,
    invoice_params,
    invoice_status,
    parse_time,
)
from subsvc_pay_cryptobot.settings import CryptoBotSettings

NAME = "cryptobot"
TITLE = "CryptoBot"
SIGNATURE_HEADER = "crypto-pay-api-signature"
INVOICE_PAID = "invoice_paid"


def signature(token: str, body: bytes) -> str:
    """The signature Crypto Pay sends with ``body``: hex HMAC-SHA256, key SHA-256(token)."""
    key = hashlib.sha256(token.encode()).digest()
    return hmac.new(key, body, hashlib.sha256).hexdigest()


def _update(body: bytes) -> dict[str, Any]:
    """The signed body as an update (400 ``invalid_update`` when it is not one)."""
    try:
        update = json.loads(body)
    except ValueError:
        raise NotificationRefused(400, "invalid_json") from None
    if not isinstance(update, dict) or not isinstance(update.get("update_type"), str):
        raise NotificationRefused(400, "invalid_update")
    return update


class CryptoBotProvider:
    """CryptoBot as a :class:`~subsvc_payments.api.PaymentProvider` (``checkable``: an
    invoice's status is read with ``getInvoices``)."""

    name = NAME
    checkable = True

    def __init__(self, settings: CryptoBotSettings, http: ProviderHttp) -> None:
        assert settings.CRYPTOBOT_API_TOKEN is not None, "built only when configured"
        self._settings = settings
        self._token = settings.CRYPTOBOT_API_TOKEN
        self._api = CryptoPay(http, self._token)

    async def create(self, request: ProviderPaymentRequest) -> ProviderPayment:
        """``createInvoice``: a fiat invoice of the amount asked; its ``bot_invoice_url``."""
        invoice = await self._api.call("createInvoice", invoice_params(request, self._settings))
        try:
            return created_payment(invoice)
        except UnreadableInvoice as error:
            raise ProviderError(f"CryptoBot answered createInvoice with {error}") from None

    async def fetch(self, provider_payment_id: str) -> ProviderStatus:
        """``getInvoices`` of this invoice id: its status."""
        result = await self._api.call("getInvoices", {"invoice_ids": provider_payment_id})
        items = result.get("items") if isinstance(result, dict) else result  # {"items": [...]}
        try:
            found = [item for item in items or () if invoice_id(item) == provider_payment_id]
            if not found:
                raise UnreadableInvoice(f"no invoice {provider_payment_id}")
            return invoice_status(found[0])
        except UnreadableInvoice as error:
            raise ProviderError(f"CryptoBot answered getInvoices with {error}") from None

    async def verify_notification(self, notification: IncomingNotification) -> Notification | None:
        """A signed, recent ``invoice_paid`` update: its invoice's status."""
        sent = notification.headers.get(SIGNATURE_HEADER, "").strip()
        if not sent:
            raise NotificationRefused(401, "missing_signature")
        expected = signature(self._token, notification.body)
        if not hmac.compare_digest(sent.lower().encode(errors="replace"), expected.encode()):
            raise NotificationRefused(401, "invalid_signature")
        update = _update(notification.body)
        try:
            refuse_stale(
                parse_time(update.get("request_date")), self._settings.CRYPTOBOT_NOTIFICATION_MAX_AGE_SECONDS
            )
            if update["update_type"] != INVOICE_PAID:
                return None
            invoice = update.get("payload")
            return Notification(invoice_id(invoice), invoice_status(invoice))
        except UnreadableInvoice:
            raise NotificationRefused(400, "invalid_update") from None
