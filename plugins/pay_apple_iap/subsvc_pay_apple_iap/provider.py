"""The provider payments knows: it serves the notification endpoint (App Store Server
Notifications V2). Apple's notifications never credit (a purchase is credited when the app
posts it); a refund, its reversal and a consumption request are recorded on the transaction
and answered 200, so ``verify_notification`` always returns ``None`` once it trusts one."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any

from starlette.applications import Starlette
from subsvc_payments.api import (
    IncomingNotification,
    Notification,
    NotificationRefused,
    ProviderError,
    ProviderPayment,
    ProviderPaymentRequest,
    ProviderStatus,
    refuse_stale,
)

from subsvc.db import utcnow
from subsvc.services import services
from subsvc_pay_apple_iap import records
from subsvc_pay_apple_iap.client import NAME, AppleTransaction, AppStoreClient, apple_time, read_transaction
from subsvc_pay_apple_iap.jws import UntrustedSignature
from subsvc_pay_apple_iap.settings import AppleIapSettings

log = logging.getLogger("subsvc.pay_apple_iap")
REFUND, REFUND_REVERSED = "REFUND", "REFUND_REVERSED"
CONSUMPTION_REQUEST, REFUND_DECLINED = "CONSUMPTION_REQUEST", "REFUND_DECLINED"
RECORDED = (REFUND, REFUND_REVERSED, CONSUMPTION_REQUEST, REFUND_DECLINED)


class AppleIapProvider:
    """Apple IAP as a payment provider: no top-up (purchases happen in the app), not
    checkable (a payment is created paid), notifications verified as Apple's signed data."""

    name = NAME
    checkable = False

    def __init__(self, app: Starlette, settings: AppleIapSettings) -> None:
        self.app = app
        self.settings = settings
        self.client = AppStoreClient(app, settings)

    async def create(self, request: ProviderPaymentRequest) -> ProviderPayment:
        raise ProviderError(
            "Apple in-app purchases are made in the app and posted to /cabinet/apple-purchase"
        )

    async def fetch(self, provider_payment_id: str) -> ProviderStatus:
        """The transaction at Apple: paid (the product's kopeks) unless revoked."""
        apple = await self.client.transaction(provider_payment_id)
        if apple.revoked_at is not None:
            return ProviderStatus("canceled", reason="revoked by Apple", raw=apple.raw)
        kopeks = self.settings.APPLE_IAP_PRODUCTS.get(apple.product_id)
        if kopeks is None:
            raise ProviderError(f"Apple product {apple.product_id} is not in APPLE_IAP_PRODUCTS")
        return ProviderStatus("paid", kopeks, "RUB", raw=apple.raw)

    async def verify_notification(self, notification: IncomingNotification) -> Notification | None:
        payload = self._payload(notification.body)
        refuse_stale(_signed_at(payload), self.settings.APPLE_IAP_NOTIFICATION_MAX_AGE_SECONDS)
        found = payload.get("data")
        data: dict[str, Any] = found if isinstance(found, dict) else {}
        kind = str(payload.get("notificationType"))
        if data.get("bundleId") != self.settings.APPLE_IAP_BUNDLE_ID:
            log.warning("Apple notification %s of another app (%s) ignored", kind, data.get("bundleId"))
            return None
        signed = data.get("signedTransactionInfo")
        if kind not in RECORDED or not isinstance(signed, str):
            return None
        try:
            apple = read_transaction(self.client.verified(signed))
        except UntrustedSignature as exc:
            raise NotificationRefused(401, f"untrusted_transaction: {exc}") from None
        await self._record(kind, payload, apple)
        return None

    def _payload(self, body: bytes) -> dict[str, Any]:
        try:
            signed = json.loads(body).get("signedPayload")
        except (ValueError, AttributeError):
            raise NotificationRefused(400, "not_json") from None
        if not isinstance(signed, str):
            raise NotificationRefused(400, "no_signed_payload")
        try:
            return self.client.verified(signed)
        except UntrustedSignature as exc:
            raise NotificationRefused(401, f"untrusted_signature: {exc}") from None

    async def _record(self, kind: str, payload: dict[str, Any], apple: AppleTransaction) -> None:
        """Note the notification on its transaction (in a transaction of its own); a refund
        marks it revoked, a reversal credited again. An unknown transaction is logged."""
        entry = {"type": kind, "subtype": payload.get("subtype"), "uuid": payload.get("notificationUUID")}
        async with services(self.app).db.session() as session:
            row = await records.find(session, apple.transaction_id, lock=True)
            if row is None:
                log.warning(
                    "Apple notified %s of transaction %s, not credited here", kind, apple.transaction_id
                )
                return
            records.noted(row, "notifications", entry)
            if kind == REFUND:
                records.revoke(self.app, session, row, apple, "notification")
            elif kind == REFUND_REVERSED:
                records.reinstate(session, row)
            elif kind == CONSUMPTION_REQUEST and row.consumption_requested_at is None:
                row.consumption_requested_at = utcnow()
            session.add(row)
            await session.commit()


def _signed_at(payload: dict[str, Any]) -> datetime:
    signed = apple_time(payload.get("signedDate"))
    if signed is None:
        raise NotificationRefused(400, "no_signed_date")
    return signed
