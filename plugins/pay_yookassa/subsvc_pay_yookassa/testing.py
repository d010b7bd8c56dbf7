"""A loopback fake of YooKassa's API v3, for tests (a pytest plugin: ``fake_yookassa``,
``yookassa_env``), speaking its protocol: ``POST /v3/payments`` and ``GET /v3/payments/{id}``
behind HTTP Basic auth (shop id : secret key; 401 ``invalid_credentials`` otherwise), errors
``{"type": "error", "id", "code", "description", "parameter"}``, a required
``Idempotence-Key`` honoured as YooKassa does (the same key and body: the same payment; the
same key and another body: 400), the body checked as YooKassa checks it (amount ``"150.00"``,
a redirect needs its ``return_url``, a description of at most 128 characters, the receipt when
the shop requires one).

Tests drive the payer and the shop: ``fake.pay(id)`` (optionally another amount; a card
payment that asked ``save_payment_method`` comes back with its card saved), ``fake.cancel(id)``,
``fake.notification_body(id)`` (what YooKassa posts to the shop), ``fake.test = True`` (a test
shop's payments), ``fake.receipt_required = True``, ``fake.fail_with(500)`` and ``await
fake.down()``. Every request is kept in ``fake.requests``. :class:`YookassaFake` is the view of
it the payments end-to-end scenarios drive (:class:`subsvc_payments.testing.ProviderFake`).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from subsvc_payments.testing import Delivery

from subsvc.testing import marked_env, set_env
from subsvc.testing_server import LoopbackServer
from subsvc_pay_yookassa.protocol import NAME, amount

SHOP_ID = "506751"
SECRET_KEY = "test_fake-yookassa-secret-0123456789"  # noqa: S105 - the fake's own
RETURN_URL = "https://cabinet.example/balance/top-up/result"
WEBHOOK_PATH = "/webhooks/payments/yookassa"
FOREIGN_IP = "127.0.0.2"
"""A sender outside the allowed sources the tests set (``127.0.0.1``)."""
EVENTS = {status: f"payment.{status}" for status in ("succeeded", "canceled", "waiting_for_capture")}
"""The event YooKassa notifies for a payment's status."""
AMOUNT = re.compile(r"^\d{1,10}\.\d{2}$")
FEE = Decimal("0.035")
CENT = Decimal("0.01")


class FakeError(Exception):
    """An error YooKassa answers: ``status`` with its ``code``, description and parameter."""

    def __init__(self, status: int, code: str, description: str, parameter: str | None = None) -> None:
        super().__init__(description)
        self.status, self.code, self.description, self.parameter = status, code, description, parameter

    def response(self) -> JSONResponse:
        body = {"type": "error", "id": str(uuid.uuid4()), "code": self.code, "description": self.description}
        if self.parameter:
            body["parameter"] = self.parameter
        return JSONResponse(body, status_code=self.status)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _invalid(description: str, parameter: str) -> FakeError:
    return FakeError(400, "invalid_request", description, parameter)


def _check_amount(value: Any, parameter: str) -> None:
    if (
        not isinstance(value, dict)
        or not AMOUNT.match(str(value.get("value")))
        or value.get("currency") != "RUB"
    ):
        raise _invalid("Invalid amount value or currency", parameter)
    if Decimal(value["value"]) <= 0:
        raise _invalid("Amount must be positive", parameter)


@dataclass
class FakeYookassa:
    """The fake's state and behaviour (see the module's documentation)."""

    shop_id: str = SHOP_ID
    secret_key: str = SECRET_KEY
    test: bool = False
    receipt_required: bool = False
    payments: dict[str, dict[str, Any]] = field(default_factory=dict)
    bodies: dict[str, dict[str, Any]] = field(default_factory=dict)
    keys: dict[str, tuple[str, str]] = field(default_factory=dict)
    requests: list[tuple[str, str, dict[str, str], Any]] = field(default_factory=list)
    failing: int | None = None
    server: LoopbackServer = field(init=False)

    def __post_init__(self) -> None:
        self.server = LoopbackServer(self.app())

    @property
    def url(self) -> str:
        """The API's base URL (``YOOKASSA_API_URL``), once served."""
        return f"{self.server.url}/v3"

    def env(self) -> dict[str, str]:
        """The settings that point the plugin at the fake, taking notifications from loopback."""
        return {
            "YOOKASSA_SHOP_ID": self.shop_id,
            "YOOKASSA_SECRET_KEY": self.secret_key,
            "YOOKASSA_API_URL": self.url,
            "YOOKASSA_TIMEOUT_SECONDS": "5",
            "YOOKASSA_ALLOWED_SOURCES": "127.0.0.1",
            "PAYMENTS_RETURN_URL": RETURN_URL,
        }

    async def up(self) -> None:
        """Serve (again) on loopback, on the same port as before."""
        await self.server.start()

    async def down(self) -> None:
        """Stop serving: calls are refused until :meth:`up`."""
        await self.server.stop()

    def fail_with(self, status: int | None) -> None:
        """Answer every call with ``status`` (an internal error), until ``fail_with(None)``."""
        self.failing = status

    # the payer's side

    def pay(self, payment_id: str, paid_kopeks: int | None = None, *, last4: str = "4444") -> dict[str, Any]:
        """The payer pays: ``succeeded``, ``paid``, captured; the card (or SBP) it was paid with,
        saved when the payment asked so. ``paid_kopeks`` changes the reported amount."""
        payment = self.payments[payment_id]
        if paid_kopeks is not None:
            payment["amount"] = amount(paid_kopeks, payment["amount"]["currency"])
        value = Decimal(payment["amount"]["value"])
        income = (value - (value * FEE).quantize(CENT)).quantize(CENT)
        method = payment["payment_method"]
        if method["type"] == "bank_card":
            method["card"] = {
                "first6": "220220",
                "last4": last4,
                "expiry_month": "12",
                "expiry_year": "2030",
                "card_type": "Mir",
                "issuer_country": "RU",
            }
            method["title"] = f"Bank card *{last4}"
            method["saved"] = bool(self.bodies[payment_id].get("save_payment_method"))
        else:
            method["sbp_operation_id"] = uuid.uuid4().hex[:24]
            method["title"] = "SBP"
        payment.update(
            status="succeeded",
            paid=True,
            captured_at=_now(),
            income_amount={"value": f"{income:.2f}", "currency": payment["amount"]["currency"]},
            authorization_details={"rrn": "603668680243", "auth_code": "000000"},
            refundable=True,
        )
        return payment

    def cancel(
        self, payment_id: str, reason: str = "expired_on_confirmation", party: str = "yoo_money"
    ) -> None:
        """The payment ends canceled, with YooKassa's ``cancellation_details``."""
        self.payments[payment_id].update(
            status="canceled", cancellation_details={"party": party, "reason": reason}
        )

    def notification_body(self, payment_id: str, event: str | None = None) -> bytes:
        """What YooKassa posts to the shop about the payment now (the event its status says)."""
        payment = self.payments[payment_id]
        notice = {"type": "notification", "event": event or EVENTS[payment["status"]], "object": payment}
        return json.dumps(notice).encode()

    # the API

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v3/payments", self._create, methods=["POST"]),
                Route("/v3/payments/{payment_id}", self._get, methods=["GET"]),
            ]
        )

    async def _answer(self, request: Request, handle: Any) -> Response:
        raw = await request.body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        self.requests.append((request.method, request.url.path, dict(request.headers), body))
        try:
            if self.failing is not None:
                raise FakeError(self.failing, "internal_server_error", "Internal server error")
            self._authorize(request)
            return JSONResponse(handle(request, body))
        except FakeError as error:
            return error.response()

    def _authorize(self, request: Request) -> None:
        scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
        try:
            shop_id, _, secret = base64.b64decode(encoded, validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            shop_id = secret = ""
        if scheme.lower() != "basic" or (shop_id, secret) != (self.shop_id, self.secret_key):
            raise FakeError(
                401,
                "invalid_credentials",
                "Error in shopId or secret key. Check their validity. "
                "You can reissue the key in the Merchant Profile",
            )

    async def _create(self, request: Request) -> Response:
        return await self._answer(request, self._created)

    async def _get(self, request: Request) -> Response:
        def found(request: Request, _: Any) -> dict[str, Any]:
            payment = self.payments.get(request.path_params["payment_id"])
            if payment is None:
                raise FakeError(404, "not_found", "Payment doesn't exist or access denied", "payment_id")
            return payment

        return await self._answer(request, found)

    def _created(self, request: Request, body: Any) -> dict[str, Any]:
        key = request.headers.get("idempotence-key")
        if not key:
            raise _invalid("Idempotence key header is missing", "Idempotence-Key")
        if len(key) > 64:
            raise _invalid("Idempotence key is too long", "Idempotence-Key")
        if not isinstance(body, dict):
            raise _invalid("Request body is not a JSON object", "body")
        canonical = json.dumps(body, sort_keys=True)
        if key in self.keys:
            first, payment_id = self.keys[key]
            if first != canonical:
                raise _invalid("Idempotence key duplicated with another request", "Idempotence-Key")
            return self.payments[payment_id]
        self._validate(body)
        payment_id = str(uuid.uuid4())
        self.payments[payment_id] = self._payment(payment_id, body)
        self.bodies[payment_id] = body
        self.keys[key] = (canonical, payment_id)
        return self.payments[payment_id]

    def _validate(self, body: dict[str, Any]) -> None:
        _check_amount(body.get("amount"), "amount")
        confirmation = body.get("confirmation")
        if not isinstance(confirmation, dict) or confirmation.get("type") != "redirect":
            raise _invalid("Confirmation type is not supported", "confirmation.type")
        if not confirmation.get("return_url"):
            raise _invalid("Missing return_url for redirect confirmation", "confirmation.return_url")
        if len(str(body.get("description", ""))) > 128:
            raise _invalid("Description is too long", "description")
        metadata = body.get("metadata", {})
        if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
            raise _invalid("Metadata values must be strings", "metadata")
        method = body.get("payment_method_data", {"type": "bank_card"})
        if method.get("type") not in ("bank_card", "sbp"):
            raise _invalid("Payment method is not available", "payment_method_data.type")
        receipt = body.get("receipt")
        if receipt is None:
            if self.receipt_required:
                raise _invalid("Receipt is missing or illegal", "receipt")
            return
        if not (receipt.get("customer") or {}).get("email") or not receipt.get("items"):
            raise _invalid("Receipt is missing or illegal", "receipt")
        for item in receipt["items"]:
            _check_amount(item.get("amount"), "receipt.items.amount")
            if item.get("amount") != body["amount"] or len(str(item.get("description", ""))) > 128:
                raise _invalid("Receipt items do not match the payment", "receipt.items")

    def _payment(self, payment_id: str, body: dict[str, Any]) -> dict[str, Any]:
        method_type = body.get("payment_method_data", {}).get("type", "bank_card")
        confirmation_url = (
            f"{self.url.removesuffix('/v3')}/checkout/payments/v2/contract?orderId={payment_id}"
        )
        return {
            "id": payment_id,
            "status": "pending",
            "paid": False,
            "amount": body["amount"],
            "confirmation": {
                "type": "redirect",
                "return_url": body["confirmation"]["return_url"],
                "confirmation_url": confirmation_url,
            },
            "created_at": _now(),
            "description": body.get("description", ""),
            "metadata": body.get("metadata", {}),
            "payment_method": {"type": method_type, "id": payment_id, "saved": False},
            "recipient": {"account_id": self.shop_id, "gateway_id": "2169380"},
            "refundable": False,
            "test": self.test,
        }


class YookassaFake:
    """The end-to-end scenarios' view of the fake (subsvc_payments' ``ProviderFake``): tops up
    by card; its notifications come from the allowed loopback address, the forged ones from
    another (``127.0.0.2``), so the address check must refuse them."""

    method, option = NAME, "card"

    def __init__(self, fake: FakeYookassa, path: str = WEBHOOK_PATH) -> None:
        self.fake = fake
        self.path = path

    async def pay(self, provider_payment_id: str, paid_kopeks: int | None = None) -> None:
        self.fake.pay(provider_payment_id, paid_kopeks)

    def notification(self, provider_payment_id: str, source_ip: str = "127.0.0.1") -> Delivery:
        body = self.fake.notification_body(provider_payment_id)
        return Delivery(self.path, body, {"Content-Type": "application/json"}, source_ip)

    def forged(self, provider_payment_id: str) -> Delivery:
        return self.notification(provider_payment_id, FOREIGN_IP)


@pytest.fixture
async def fake_yookassa() -> AsyncIterator[FakeYookassa]:
    """A loopback fake YooKassa for one test."""
    fake = FakeYookassa()
    async with fake.server:
        yield fake


@pytest.fixture
def yookassa_env(fake_yookassa: FakeYookassa, monkeypatch: pytest.MonkeyPatch) -> FakeYookassa:
    """``fake_yookassa``, with the environment pointing the plugin at it (request it before
    ``app`` is built, e.g. from ``subsvc_settings_overrides``)."""
    set_env(monkeypatch, fake_yookassa.env())
    return fake_yookassa


def marked_fake_env(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, marker: str, fake: FakeYookassa
) -> None:
    """Point the test's app at ``fake`` alone: every ``YOOKASSA_*`` variable of the environment
    removed, then the fake's settings and those of the test's ``marker`` set (an empty value
    unsets one; :func:`subsvc.testing.marked_env`)."""
    for name in os.environ:
        if name.startswith("YOOKASSA_"):
            monkeypatch.delenv(name)
    marked_env(request, monkeypatch, marker, fake.env())
