"""A provider plugin for the tests: it serves the method ``fakepay`` through the payments
hooks, and its provider is an in-process object whose answers the test sets (it stands for
a provider plugin, not for the provider's network API). Loaded by conftest.py."""

from __future__ import annotations

import asyncio
from datetime import datetime

from starlette.applications import Starlette
from subsvc_payments.api import (
    PaymentMethodInfo,
    ProviderError,
    ProviderPayment,
    ProviderPaymentRequest,
    ProviderStatus,
)

from subsvc.hookspecs import hookimpl

PLUGIN_NAME = "fake_provider"
REQUIRES = ("payments",)
NAME = "fakepay"
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

    def pay(self, provider_payment_id: str, amount_kopeks: int, currency: str = "RUB") -> None:
        raw = {"id": provider_payment_id, "status": "succeeded", "amount": amount_kopeks}
        self.states[provider_payment_id] = ProviderStatus("paid", amount_kopeks, currency, raw=raw)


class Configured:
    provider: FakeProvider | None = None


@hookimpl
def payments_providers(app: Starlette) -> list[PaymentMethodInfo] | None:
    return [METHOD] if Configured.provider is not None else None


@hookimpl
def payments_provider(app: Starlette, method: str) -> FakeProvider | None:
    return Configured.provider if method == NAME else None
