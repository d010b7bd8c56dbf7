"""Test kit of the Stars provider (a pytest plugin, entry point ``pytest11``). The messenger's
side is core's loopback fake Bot API (``fake_bot_api``: ``createInvoiceLink``,
``answerPreCheckoutQuery``, and the payer's ``pre_checkout`` / ``pay`` answering the Updates
the messenger sends the bot):

- ``stars_env``: the environment enabling Stars (:data:`STARS_ENV`, updated by the test's
  ``@pytest.mark.stars_env(NAME=value)``); with ``subsvc_settings_overrides`` returning
  ``fake_bot_api.settings()`` the app makes its invoices at the fake;
- ``stars_fake``: a :class:`StarsFake`, the scenarios' ``ProviderFake``: it pays an invoice at
  the fake and delivers the paid update as the bot forwards it (the secret header set).
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from subsvc_payments.testing import Delivery

from subsvc.testing import marked_env
from subsvc.testing_messenger import FakeBotAPI
from subsvc_pay_stars.provider import NAME, SECRET_HEADER

SECRET = "stars-test-secret_0123456789"  # noqa: S105 - test fixture
RATE = Decimal("1.00")
PAYER_ID = 900_000_777
PATH = f"/webhooks/payments/{NAME}"
STARS_ENV = {"STARS_ENABLED": "true", "STARS_RATE_RUB": str(RATE), "STARS_WEBHOOK_SECRET": SECRET}


class StarsFake:
    """The messenger's side of Stars payments, for the end-to-end scenarios: ``pay`` has the
    payer pay an invoice (by its payload, our provider payment id) at the fake Bot API, and
    ``notification`` is the paid Update, delivered as the bot forwards it."""

    method, option = NAME, None

    def __init__(self, bot_api: FakeBotAPI, *, payer_id: int = PAYER_ID, rate: Decimal = RATE) -> None:
        self.bot_api = bot_api
        self.payer_id = payer_id
        self.rate = rate
        self.paid: dict[str, dict[str, Any]] = {}

    def link(self, payload: str) -> str:
        """The invoice link the fake made for ``payload`` (the last one)."""
        links = [link for link, invoice in self.bot_api.invoices.items() if invoice["payload"] == payload]
        assert links, f"no invoice with the payload {payload!r}"
        return links[-1]

    def stars(self, kopeks: int) -> int:
        """The whole stars ``kopeks`` are worth at the rate."""
        stars = Decimal(kopeks) / (self.rate * 100)
        assert stars == stars.to_integral_value(), f"{kopeks} kopeks are not whole stars at {self.rate}"
        return int(stars)

    async def pay(self, provider_payment_id: str, paid_kopeks: int | None = None) -> None:
        total = None if paid_kopeks is None else self.stars(paid_kopeks)
        link = self.link(provider_payment_id)
        self.paid[provider_payment_id] = self.bot_api.pay(link, self.payer_id, total_amount=total)

    def update(self, update: dict[str, Any], secret: str = SECRET, path: str = PATH) -> Delivery:
        """An Update as the bot forwards it (or the messenger posts it) to our endpoint."""
        headers = {"Content-Type": "application/json", SECRET_HEADER: secret}
        return Delivery(path, json.dumps(update).encode(), headers)

    def notification(self, provider_payment_id: str) -> Delivery:
        return self.update(self.paid[provider_payment_id])

    def forged(self, provider_payment_id: str) -> Delivery:
        return self.update(self.paid[provider_payment_id], secret="forged-" + SECRET)

    def pre_checkout(self, provider_payment_id: str) -> tuple[str, Delivery]:
        """The payer confirms the invoice: the query's id and its Update, delivered."""
        update = self.bot_api.pre_checkout(self.link(provider_payment_id), self.payer_id)
        return update["pre_checkout_query"]["id"], self.update(update)


@pytest.fixture
def stars_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Stars enabled in the environment the app reads (``@pytest.mark.stars_env(...)`` on top)."""
    return marked_env(request, monkeypatch, "stars_env", STARS_ENV)


@pytest.fixture
def stars_fake(fake_bot_api: FakeBotAPI) -> StarsFake:
    """The messenger's side of Stars payments at ``fake_bot_api``."""
    return StarsFake(fake_bot_api)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "stars_env(**values): Stars settings for the test's app")
