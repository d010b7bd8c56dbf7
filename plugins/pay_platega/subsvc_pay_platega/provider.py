"""The Platega :class:`PaymentProvider`: creation, a transaction's status, and its callbacks.

A callback carries the merchant's id and secret in its headers, a static secret a captured
callback replays as well: its body is never trusted for the status or the amount. Once its
headers are right, the transaction it names is read again (``GET /transaction/{id}``) and
that answer is what applies (Platega unreachable then: :class:`ProviderError`, 502, and it
retries).
"""

from __future__ import annotations

import hmac
from dataclasses import replace

from starlette.applications import Starlette
from subsvc_payments.api import (
    IncomingNotification,
    Notification,
    NotificationRefused,
    ProviderError,
    ProviderPayment,
    ProviderPaymentRequest,
    ProviderRefused,
    ProviderStatus,
)

from subsvc.db import utcnow
from subsvc_pay_platega.client import PlategaClient
from subsvc_pay_platega.protocol import NAME, created, creation_body, log, read_callback, status_of
from subsvc_pay_platega.settings import PlategaSettings


def _same(given: str | None, expected: str | None) -> bool:
    """Constant-time equality of a header and a setting (both present)."""
    return hmac.compare_digest((given or "").encode(), (expected or "").encode()) and bool(given)


class PlategaProvider:
    """Platega for one app, built from its settings (configured) on each use."""

    name = NAME
    checkable = True

    def __init__(self, app: Starlette, settings: PlategaSettings) -> None:
        self.settings = settings
        self.client = PlategaClient(app, settings)

    def method_code(self, option: str | None) -> int:
        """Platega's method code of the cabinet's option (the first enabled one without)."""
        codes = self.settings.PLATEGA_METHODS
        if option is None:
            return codes[0]
        if not option.isdigit() or int(option) not in codes:
            raise ProviderError(f"Platega method {option!r} is not enabled (PLATEGA_METHODS)")
        return int(option)

    async def create(self, request: ProviderPaymentRequest) -> ProviderPayment:
        """A transaction at Platega for the payment; its redirect URL is the payer's."""
        if request.currency != self.settings.PLATEGA_CURRENCY:
            raise ProviderError(
                f"Platega takes {self.settings.PLATEGA_CURRENCY} (PLATEGA_CURRENCY), not {request.currency}"
            )
        body = creation_body(request, self.method_code(request.option))
        return created(await self.client.process(body), utcnow())

    async def fetch(self, provider_payment_id: str) -> ProviderStatus:
        """The transaction's status at Platega (the module :mod:`.protocol` maps it)."""
        return status_of(await self.client.transaction(provider_payment_id))

    async def verify_notification(self, notification: IncomingNotification) -> Notification | None:
        """Platega's callback: an empty probe is acknowledged; both merchant headers must be
        ours (401 ``unauthorized``); the body must name a transaction (400); a recurrent
        subscription's callback is acknowledged and logged; otherwise the transaction is read
        again and Platega's answer is what the notification says (a transaction Platega does
        not know: acknowledged and logged)."""
        merchant_id = notification.headers.get("x-merchantid")
        secret = notification.headers.get("x-secret")
        if merchant_id is None and secret is None and not notification.body.strip():
            return None
        ours = _same(merchant_id, self.settings.PLATEGA_MERCHANT_ID)
        if not (_same(secret, self.settings.PLATEGA_SECRET) and ours):
            raise NotificationRefused(401, "unauthorized")
        if not notification.body.strip():
            return None
        callback = read_callback(notification.body)
        if callback.recurrent:
            log.warning(
                "Platega recurrent subscription callback %r acknowledged, not handled", callback.status
            )
            return None
        try:
            status = await self.fetch(callback.transaction_id)
        except ProviderRefused as refused:
            if refused.status != 404:
                raise
            log.warning(
                "Platega called back about transaction %s, which it does not know", callback.transaction_id
            )
            return None
        if callback.status != status.raw.get("status"):
            log.info(
                "Platega callback says %r for transaction %s, its API %s: the API's applies",
                callback.status,
                callback.transaction_id,
                status.raw.get("status"),
            )
        return Notification(
            callback.transaction_id, replace(status, raw={**status.raw, "callback": callback.status})
        )
