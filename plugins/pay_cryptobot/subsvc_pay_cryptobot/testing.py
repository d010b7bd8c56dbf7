"""A loopback fake of the Crypto Pay API, for tests (and local trials), and the CryptoBot
view of the payments plugin's end-to-end scenarios.

It answers the methods this plugin calls the way Crypto Pay does: ``<url>/<method>`` by GET
(query) or POST (JSON), the token checked in ``Crypto-Pay-API-Token`` (else 401
``{"ok": false, "error": {"code": 401, "name": "UNAUTHORIZED"}}``), every answer
``{"ok": true, "result": ...}``: ``getMe``, ``createInvoice`` (fiat or crypto invoices,
``expires_in``, ``accepted_assets``, ``payload``...), ``getInvoices`` (``invoice_ids``,
``status``, ``offset``, ``count``: ``{"items": [...]}``); an unknown method is 405
``METHOD_NOT_FOUND``. The names of its 400 errors for bad parameters are the fake's own.

Tests drive it: ``fake.pay(invoice_id, asset="TON")`` pays an active invoice at that asset's
rate (``fake.rates``, rubles per unit), ``fake.expire(invoice_id)`` ends one unpaid,
``fake.update(invoice_id)`` is the signed ``invoice_paid`` update Crypto Pay then sends
(body and headers), ``fake.fail_with(500)`` answers a status until ``fail_with(None)``
(200: ``{"ok": false}``), ``fake.strip_from_answers = {"bot_invoice_url"}`` leaves fields out
of createInvoice's answers, ``fake.stalled = True`` answers nothing (until it goes down),
``await fake.down()`` / ``up()`` stop and resume serving (``async with FakeCryptoPay() as
fake`` serves one for a block). ``fake.calls`` records ``(method, params)``.

Fixtures (a pytest plugin, entry point ``pytest11``): ``fake_cryptopay`` serves one on a free
loopback port; ``cryptobot_env`` puts the settings that point the plugin at it in the
environment (request it before ``app`` is built, e.g. from ``subsvc_settings_overrides``),
updated by the test's ``@pytest.mark.cryptobot_env(NAME=value)``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import ROUND_UP, Decimal, InvalidOperation
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from subsvc_payments.api import rubles_text
from subsvc_payments.testing import Delivery

from subsvc.testing import marked_env
from subsvc.testing_server import LoopbackServer
from subsvc_pay_cryptobot.provider import NAME, SIGNATURE_HEADER, signature

TOKEN = "1234:AAfakeCryptoPayAppTokenForTests"  # noqa: S105 - the fake's own
FIATS = ("RUB", "USD", "EUR")
ASSETS = ("USDT", "TON", "BTC", "ETH", "LTC", "TRX", "USDC")
RATES = {"USDT": "95.50", "TON": "520.00", "BTC": "6100000.00", "ETH": "310000.00"}
USD_RUB = Decimal("95.50")
EXPIRES_MAX = 2_678_400


class FakeError(Exception):
    """A Crypto Pay error answer: HTTP ``code`` and ``{"ok": false, "error": {code, name}}``."""

    def __init__(self, code: int, name: str) -> None:
        super().__init__(name)
        self.code = code
        self.name = name


def _time(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _positive(value: Any, error: str) -> Decimal:
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise FakeError(400, error) from None
    if not amount.is_finite() or amount <= 0:
        raise FakeError(400, error)
    return amount


@dataclass
class FakeCryptoPay:
    """The fake's state and behaviour; :meth:`app` is its ASGI application."""

    token: str = TOKEN
    url: str = ""
    invoices: dict[int, dict[str, Any]] = field(default_factory=dict)
    rates: dict[str, str] = field(default_factory=lambda: dict(RATES))
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    failing: int | None = None
    stalled: bool = False
    strip_from_answers: set[str] = field(default_factory=set)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1001))
    _updates: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _server: LoopbackServer | None = None
    _released: asyncio.Event = field(default_factory=asyncio.Event)

    # --- tests drive it ------------------------------------------------------------------

    def fail_with(self, status: int | None) -> None:
        """Answer every call with this HTTP status (``None``: answer normally again)."""
        self.failing = status

    def pay(self, invoice_id: int, asset: str = "USDT", *, fiat_amount: str | None = None) -> dict[str, Any]:
        """The payer pays an active invoice in ``asset`` at its rate; ``fiat_amount`` makes the
        invoice report another amount than it was created with (a provider-side discrepancy)."""
        invoice = self.invoices[invoice_id]
        assert invoice["status"] == "active", f"invoice {invoice_id} is {invoice['status']}"
        if fiat_amount is not None:
            invoice["amount"] = fiat_amount
        rate = Decimal(self.rates[asset])
        fiat = Decimal(invoice["amount"])
        paid = (
            (fiat / rate).quantize(Decimal("0.00000001"), rounding=ROUND_UP)
            if invoice["currency_type"] == "fiat"
            else fiat
        )
        invoice |= {
            "status": "paid",
            "paid_asset": asset,
            "paid_amount": str(paid.normalize()),
            "paid_fiat_rate": str(rate),
            "paid_usd_rate": str((rate / USD_RUB).quantize(Decimal("0.01"))),
            "fee_asset": asset,
            "fee_amount": str((paid * Decimal("0.03")).quantize(Decimal("0.00000001")).normalize()),
            "paid_anonymously": False,
            "paid_at": _time(datetime.now(UTC)),
        }
        return invoice

    def expire(self, invoice_id: int) -> None:
        """The invoice's time runs out unpaid."""
        self.invoices[invoice_id]["status"] = "expired"

    def update(
        self, invoice_id: int, *, update_type: str = "invoice_paid", sent_at: datetime | None = None
    ) -> tuple[bytes, dict[str, str]]:
        """The update Crypto Pay sends about the invoice now: its body and headers, signed."""
        body = json.dumps(
            {
                "update_id": next(self._updates),
                "update_type": update_type,
                "request_date": _time(sent_at or datetime.now(UTC)),
                "payload": self.invoices[invoice_id],
            }
        ).encode()
        return body, {SIGNATURE_HEADER: signature(self.token, body), "Content-Type": "application/json"}

    def env(self) -> dict[str, str]:
        """Settings that point the plugin at this fake."""
        return {"CRYPTOBOT_API_TOKEN": self.token, "CRYPTOBOT_API_URL": self.url}

    async def up(self) -> None:
        """Serve (again, on the same port) on loopback."""
        self._released.clear()
        self._server = self._server or LoopbackServer(self.app())
        await self._server.start()
        self.url = f"{self._server.url}/api"

    async def down(self) -> None:
        """Stop serving: connections are refused until :meth:`up` (stalled calls end first)."""
        self._released.set()
        if self._server is not None:
            await self._server.stop()

    async def __aenter__(self) -> FakeCryptoPay:
        await self.up()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.down()

    # --- the API ---------------------------------------------------------------------------

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/api/{method}", self._endpoint, methods=["GET", "POST"])])

    async def _endpoint(self, request: Request) -> JSONResponse:
        method = request.path_params["method"]
        params: dict[str, Any] = dict(request.query_params)
        if request.method == "POST" and await request.body():
            body = await request.json()
            params |= body if isinstance(body, dict) else {}
        self.calls.append((method, params))
        if self.stalled:  # no answer until the fake goes down: the caller's timeout
            await self._released.wait()
        if self.failing is not None:
            return JSONResponse(
                {"ok": False, "error": {"code": self.failing, "name": "FAILING"}}, self.failing
            )
        try:
            if request.headers.get("crypto-pay-api-token") != self.token:
                raise FakeError(401, "UNAUTHORIZED")
            methods = {"getMe": self._get_me, "createInvoice": self._create, "getInvoices": self._list}
            handler = methods.get(method)
            if handler is None:
                raise FakeError(405, "METHOD_NOT_FOUND")
            return JSONResponse({"ok": True, "result": handler(params)})
        except FakeError as error:
            return JSONResponse({"ok": False, "error": {"code": error.code, "name": error.name}}, error.code)

    def _get_me(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"app_id": 1, "name": "subsvc tests", "payment_processing_bot_username": "CryptoTestnetBot"}

    def _create(self, params: dict[str, Any]) -> dict[str, Any]:
        fiat_invoice = params.get("currency_type", "crypto") == "fiat"
        currency_key = "fiat" if fiat_invoice else "asset"
        if params.get(currency_key) not in (FIATS if fiat_invoice else ASSETS):
            raise FakeError(400, f"{currency_key.upper()}_INVALID")
        amount = _positive(params.get("amount"), "AMOUNT_INVALID")
        accepted = [code for code in str(params.get("accepted_assets") or "").split(",") if code]
        if (accepted and not fiat_invoice) or any(code not in ASSETS for code in accepted):
            raise FakeError(400, "ACCEPTED_ASSETS_INVALID")
        expires_in = params.get("expires_in")
        if isinstance(expires_in, str) and expires_in.isdigit():  # a GET's query: text
            expires_in = int(expires_in)
        if expires_in is not None and not (isinstance(expires_in, int) and 1 <= expires_in <= EXPIRES_MAX):
            raise FakeError(400, "EXPIRES_IN_INVALID")
        if len(str(params.get("description", ""))) > 1024 or len(str(params.get("payload", ""))) > 4096:
            raise FakeError(400, "PARAMS_TOO_LONG")
        invoice_id, now, hash_ = next(self._ids), datetime.now(UTC), "IV" + secrets.token_hex(6)
        invoice: dict[str, Any] = {
            "invoice_id": invoice_id,
            "hash": hash_,
            "currency_type": "fiat" if fiat_invoice else "crypto",
            currency_key: params[currency_key],
            "amount": str(amount),
            "status": "active",
            "bot_invoice_url": f"https://t.me/CryptoTestnetBot?start={hash_}",
            "mini_app_invoice_url": f"https://t.me/CryptoTestnetBot/app?startapp=invoice-{hash_}&mode=compact",
            "web_app_invoice_url": f"https://testnet-app.send.tg/invoices/{hash_}",
            "description": params.get("description"),
            "payload": params.get("payload"),
            "created_at": _time(now),
            "allow_comments": params.get("allow_comments", True),
            "allow_anonymous": params.get("allow_anonymous", True),
        }
        if fiat_invoice:
            invoice["accepted_assets"] = accepted or list(ASSETS)
        if expires_in:
            invoice["expiration_date"] = _time(now + timedelta(seconds=expires_in))
        for key in ("paid_btn_name", "paid_btn_url"):
            if key in params:
                invoice[key] = params[key]
        self.invoices[invoice_id] = invoice
        return {key: value for key, value in invoice.items() if key not in self.strip_from_answers}

    def _list(self, params: dict[str, Any]) -> dict[str, Any]:
        items = sorted(self.invoices.values(), key=lambda invoice: -invoice["invoice_id"])
        if params.get("invoice_ids"):
            wanted = {part.strip() for part in str(params["invoice_ids"]).split(",")}
            items = [invoice for invoice in items if str(invoice["invoice_id"]) in wanted]
        if params.get("status"):
            items = [invoice for invoice in items if invoice["status"] == params["status"]]
        offset, count = int(params.get("offset") or 0), int(params.get("count") or 100)
        return {"items": items[offset : offset + count]}


class CryptoBotFake:
    """The end-to-end scenarios' view of the fake (``subsvc_payments.testing_e2e.ProviderFake``):
    the method ``cryptobot``, paying in USDT, notifications as Crypto Pay signs them."""

    method, option = NAME, None

    def __init__(self, fake: FakeCryptoPay, path: str = f"/webhooks/payments/{NAME}") -> None:
        self.fake = fake
        self.path = path

    async def pay(self, provider_payment_id: str, paid_kopeks: int | None = None) -> None:
        reported = None if paid_kopeks is None else rubles_text(paid_kopeks)
        self.fake.pay(int(provider_payment_id), fiat_amount=reported)

    def notification(self, provider_payment_id: str) -> Delivery:
        body, headers = self.fake.update(int(provider_payment_id))
        return Delivery(self.path, body, headers)

    def forged(self, provider_payment_id: str) -> Delivery:
        """The same update signed with another token's key."""
        body, headers = self.fake.update(int(provider_payment_id))
        return Delivery(self.path, body, {**headers, SIGNATURE_HEADER: signature("forger:token", body)})


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "cryptobot_env(**values): CryptoBot settings for the test's app")


@pytest.fixture
async def fake_cryptopay() -> AsyncIterator[FakeCryptoPay]:
    """A loopback fake Crypto Pay API for one test (see the module's documentation)."""
    async with FakeCryptoPay() as fake:
        yield fake


@pytest.fixture
def cryptobot_env(
    fake_cryptopay: FakeCryptoPay, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> FakeCryptoPay:
    """``fake_cryptopay``, with the environment pointing the plugin at it (and the test's
    ``cryptobot_env`` mark on top: ``CRYPTOBOT_API_TOKEN=""`` leaves it unconfigured)."""
    marked_env(request, monkeypatch, "cryptobot_env", fake_cryptopay.env())
    return fake_cryptopay
