"""Run the CryptoBot plugin (payments and what it needs come along) pointed at the loopback
fake Crypto Pay API (``subsvc_pay_cryptobot.testing``); the payments kit works on
``cryptobot``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from subsvc_pay_cryptobot.provider import NAME
from subsvc_pay_cryptobot.testing import CryptoBotFake, FakeCryptoPay
from subsvc_payments.testing import topup


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["pay_cryptobot"]


@pytest.fixture
def payment_provider() -> str:
    return "cryptobot"


@pytest.fixture
def subsvc_settings_overrides(cryptobot_env: FakeCryptoPay) -> dict[str, Any]:
    """The app reads CryptoBot's settings from the environment, pointed at the fake."""
    return {}


@pytest.fixture
def provider_fake(cryptobot_env: FakeCryptoPay) -> CryptoBotFake:
    return CryptoBotFake(cryptobot_env)


@dataclass(frozen=True)
class TopUp:
    """A user's top-up through the cabinet: the user, the local payment id, the invoice id."""

    user: Any
    payment_id: int
    invoice_id: int
    answer: dict[str, Any]


@pytest.fixture
def top_up(insert_user: Any, cabinet: Any, cryptobot_env: FakeCryptoPay) -> Callable[..., Awaitable[TopUp]]:
    """``await top_up(25_000)``: a new user's ``POST /cabinet/balance/topup`` through CryptoBot
    (answered 200), creating an invoice at the fake."""

    async def make(amount_kopeks: int = 25_000) -> TopUp:
        user = await insert_user()
        async with cabinet(user.id) as http:
            answer = await topup(http, NAME, amount_kopeks)
        [invoice_id] = [
            number
            for number, invoice in cryptobot_env.invoices.items()
            if invoice["payload"] == answer["payment_id"]
        ]
        return TopUp(user, int(answer["payment_id"]), invoice_id, answer)

    return make
