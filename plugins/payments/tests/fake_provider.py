"""A provider plugin for the tests: it serves the method ``fakepay`` through the payments
hooks, and its provider is an in-process object whose answers the test sets (it stands for
a provider plugin, not for the provider's network API). Its notifications are JSON
``{"id", "state", "amount", "currency", "sent_at"}`` signed by the header
``X-Fake-Signature`` (hex HMAC-SHA256 of the body with :data:`SECRET`), served at
``/webhooks/payments/fakepay`` or ``FAKEPAY_WEBHOOK_PATH``. Loaded by conftest.py."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
from datetime import UTC, datetime
from typing import Any

from pydantic import Field
from starlette.applications import Starlette
from subsvc_payments.api import (
    IncomingNotification,
    Notification,
    NotificationRefused,
    PaymentMethodInfo,
    ProviderError,
    ProviderPayment,
    ProviderPaymentRequest,
    ProviderStatus,
    notification_endpoint,
    refuse_stale,
)
from subsvc_payments.testing_e2e import Delivery

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc.settings import PluginSettings

PLUGIN_NAME = "fake_provider"
REQUIRES = ("payments",)
NAME = "fakepay"
SECRET = b"fake-secret"
MAX_AGE_SECONDS = 300
METHOD = PaymentMethodInfo(
    id=NAME,
    name="Fake card",
    min_amount_kopeks=10_000,
    max_amount_kopeks=1_000_000,
    options=[{"id": "card", "name": "Card", "description": None}, {"id": "sbp", "name": "SBP"}],
)


class FakeProvider:
    """The provider: ``down`` makes both calls fail; ``states`` is what ``fetch`` answers."""

    name = NAME
    checkable = True

    def __init__(self) -> None:
        self.down = False
        self.expires_at: datetime | None = None
        self.created: list[ProviderPaymentRequest] = []
        self.states: dict[str, ProviderStatus] = {}
        self.fetched = 0

    async def create(self, request: ProviderPaymentRequest) -> ProviderPayment:
        if self.down:
            raise ProviderError("connection refused")
        self.created.append(request)
        provider_payment_id = f"fp-{request.payment_id}"
        self.states[provider_payment_id] = ProviderStatus("pending")
        url = f"https://pay.example/{provider_payment_id}"
        return ProviderPayment(provider_payment_id, url, self.expires_at, {"fake": True})

    async def fetch(self, provider_payment_id: str) -> ProviderStatus:
        self.fetched += 1
        await asyncio.sleep(0.01)  # concurrent checks overlap here
        if self.down:
            raise ProviderError("timed out")
        return self.states[provider_payment_id]

    async def verify_notification(self, notification: IncomingNotification) -> Notification | None:
        signature = notification.headers.get("x-fake-signature", "")
        if not hmac.compare_digest(signature, sign(notification.body)):
            raise NotificationRefused(401, "invalid_signature")
        try:
            data = json.loads(notification.body)
        except ValueError:
            raise NotificationRefused(400, "invalid_json") from None
        refuse_stale(datetime.fromisoformat(data["sent_at"]), MAX_AGE_SECONDS)
        if data["state"] == "ignored":
            return None
        amount = data.get("amount")
        status = ProviderStatus(data["state"], amount, data.get("currency"), raw=data)
        return Notification(str(data["id"]), status)

    def pay(self, provider_payment_id: str, amount_kopeks: int, currency: str = "RUB") -> None:
        raw = {"id": provider_payment_id, "status": "succeeded", "amount": amount_kopeks}
        self.states[provider_payment_id] = ProviderStatus("paid", amount_kopeks, currency, raw=raw)


class FakepayFake:
    """The end-to-end scenarios' view of the test provider (subsvc_payments.testing_e2e):
    paying sets what ``fetch`` answers, notifications are signed JSON of that state."""

    method, option = NAME, None

    def __init__(self, provider: FakeProvider) -> None:
        self.provider = provider

    async def pay(self, provider_payment_id: str, paid_kopeks: int | None = None) -> None:
        asked = next(
            r.amount_kopeks for r in self.provider.created if f"fp-{r.payment_id}" == provider_payment_id
        )
        self.provider.pay(provider_payment_id, asked if paid_kopeks is None else paid_kopeks)

    def notification(self, provider_payment_id: str, signature: str | None = None) -> Delivery:
        status = self.provider.states[provider_payment_id]
        fields = {"amount": status.paid_amount_kopeks, "currency": status.currency}
        body, signed = notification(provider_payment_id, status.state, datetime.now(UTC), **fields)
        return Delivery("/webhooks/payments/fakepay", body, {"X-Fake-Signature": signature or signed})

    def forged(self, provider_payment_id: str) -> Delivery:
        return self.notification(provider_payment_id, signature="0" * 64)


def sign(body: bytes) -> str:
    return hmac.new(SECRET, body, hashlib.sha256).hexdigest()


def notification(provider_payment_id: str, state: str, sent_at: datetime, **fields: Any) -> tuple[bytes, str]:
    """A notification's body and its signature."""
    data = {"id": provider_payment_id, "state": state, "sent_at": sent_at.isoformat(), **fields}
    body = json.dumps(data).encode()
    return body, sign(body)


class FakepaySettings(PluginSettings):
    FAKEPAY_WEBHOOK_PATH: str | None = Field(None, pattern="^/")


class Configured:
    provider: FakeProvider | None = None


@hookimpl
def payments_providers(app: Starlette) -> list[PaymentMethodInfo] | None:
    return [METHOD] if Configured.provider is not None else None


@hookimpl
def payments_provider(app: Starlette, method: str) -> FakeProvider | None:
    return Configured.provider if method == NAME else None


@hookimpl
def register_settings() -> type[PluginSettings]:
    return FakepaySettings


@hookimpl
def register_routes() -> list[Endpoint]:
    router = notification_endpoint(NAME, path_setting="FAKEPAY_WEBHOOK_PATH", provider_title="Fakepay")
    return router.endpoints
