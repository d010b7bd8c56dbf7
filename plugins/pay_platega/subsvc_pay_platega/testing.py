"""A loopback fake of Platega, for tests (and local trials); a pytest plugin (entry point
``pytest11``) with the fixtures ``fake_platega`` and ``platega_env``.

It serves the calls :class:`~subsvc_pay_platega.client.PlategaClient` makes the way Platega
does: ``POST /transaction/process`` and ``GET /transaction/{id}``, ``X-MerchantId`` and
``X-Secret`` checked on each (401 with an empty body otherwise), a refused body 400 as
problem details, an unknown transaction 404; amounts are JSON numbers in rubles, ``expiresIn``
is ``HH:MM:SS``. Its transactions live in memory; a test moves them (``pay``, ``cancel``,
``set_status``) and takes the callback Platega then sends (``callback``: its body and
headers). ``fail_with(503)`` answers that status to every call until ``fail_with(None)``;
``server.stop()`` / ``server.start()`` stop and resume serving (on the same port). Every call
is recorded in ``requests`` as ``(method, path, body)``.

:class:`PlategaFake` is the fake as the end-to-end scenarios of
:mod:`subsvc_payments.testing_e2e` drive it (a ``ProviderFake``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from subsvc_payments.api import exact_json, rubles_text
from subsvc_payments.testing import Delivery

from subsvc.testing import marked_env
from subsvc.testing_server import LoopbackServer

MERCHANT_ID = "6f1d2c3b-0a9e-4d8c-b7a6-5e4f3d2c1b0a"
SECRET = "fake-platega-secret-0123456789"  # noqa: S105 - the fake's own
METHODS = {2: "SBPQR", 10: "CardRu", 11: "Card", 12: "International", 13: "Crypto"}
FORGED_SECRET = "guessed-secret"  # noqa: S105 - a forger's guess
WEBHOOK_PATH = "/webhooks/payments/platega"


@dataclass
class FakeTransaction:
    """One transaction at the fake: what was asked, and its status now."""

    id: str
    payment_method: int
    amount: Decimal
    currency: str
    description: str | None
    return_url: str | None
    failed_url: str | None
    payload: str | None
    status: str = "PENDING"


def _json(status: int, body: Any = None) -> Response:
    content = b"" if body is None else exact_json(body).encode()
    return Response(content, status_code=status, media_type="application/json")


def _problem(status: int, title: str, errors: dict[str, list[str]] | None = None) -> Response:
    return _json(status, {"title": title, "status": status, **({"errors": errors} if errors else {})})


def _refusals(body: Any) -> dict[str, list[str]]:
    """What Platega would refuse in a creation's body (field -> messages)."""
    if not isinstance(body, dict):
        return {"$": ["The request body is not a JSON object."]}
    errors: dict[str, list[str]] = {}
    if body.get("paymentMethod") not in METHODS or isinstance(body.get("paymentMethod"), bool):
        errors["paymentMethod"] = ["Unknown payment method."]
    details = body.get("paymentDetails")
    amount = details.get("amount") if isinstance(details, dict) else None
    if not isinstance(amount, int | Decimal) or isinstance(amount, bool) or amount <= 0:
        errors["paymentDetails.amount"] = ["The amount must be a positive number."]
    elif Decimal(amount) != Decimal(amount).quantize(Decimal("0.01")):
        errors["paymentDetails.amount"] = ["The amount has more than two decimals."]
    if not isinstance(details, dict) or not isinstance(details.get("currency"), str):
        errors["paymentDetails.currency"] = ["The currency is required."]
    return errors


@dataclass
class FakePlatega:
    """The fake's state and behaviour; :meth:`app` is its ASGI application."""

    merchant_id: str = MERCHANT_ID
    secret: str = SECRET
    expires_in: str | None = "00:15:00"
    transactions: dict[str, FakeTransaction] = field(default_factory=dict)
    requests: list[tuple[str, str, Any]] = field(default_factory=list)
    failing: int | None = None

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/transaction/process", self._process, methods=["POST"]),
                Route("/transaction/{transaction_id}", self._transaction, methods=["GET"]),
            ]
        )

    def __post_init__(self) -> None:
        self.server = LoopbackServer(self.app())

    @property
    def url(self) -> str:
        """Its base URL (``PLATEGA_API_URL``) once served."""
        return self.server.url

    def env(self) -> dict[str, str]:
        """The settings pointing the plugin at this fake."""
        return {
            "PLATEGA_API_URL": self.url,
            "PLATEGA_MERCHANT_ID": self.merchant_id,
            "PLATEGA_SECRET": self.secret,
        }

    def fail_with(self, status: int | None) -> None:
        """Answer ``status`` (with an empty body) to every call, until ``fail_with(None)``."""
        self.failing = status

    def pay(self, transaction_id: str, paid_kopeks: int | None = None) -> None:
        """The payer pays: the transaction is ``CONFIRMED`` (for ``paid_kopeks`` if given)."""
        transaction = self.transactions[transaction_id]
        if paid_kopeks is not None:
            transaction.amount = Decimal(rubles_text(paid_kopeks))
        transaction.status = "CONFIRMED"

    def cancel(self, transaction_id: str) -> None:
        self.set_status(transaction_id, "CANCELED")

    def set_status(self, transaction_id: str, status: str) -> None:
        self.transactions[transaction_id].status = status

    def callback(
        self, transaction_id: str, *, status: str | None = None, secret: str | None = None
    ) -> tuple[bytes, dict[str, str]]:
        """The callback Platega sends about the transaction now (its status, or ``status``
        claimed instead): its body and headers (``secret`` instead of ours: a forgery)."""
        transaction = self.transactions[transaction_id]
        body = {
            "id": transaction.id,
            "amount": transaction.amount,
            "currency": transaction.currency,
            "status": status or transaction.status,
            "paymentMethod": transaction.payment_method,
            "payload": transaction.payload,
        }
        headers = {
            "Content-Type": "application/json",
            "X-MerchantId": self.merchant_id,
            "X-Secret": self.secret if secret is None else secret,
        }
        return exact_json(body).encode(), headers

    def _refused(self, request: Request) -> Response | None:
        """Platega's 401 for foreign credentials, or the failure a test asked for."""
        if self.failing is not None:
            return Response(status_code=self.failing)
        merchant, secret = request.headers.get("x-merchantid"), request.headers.get("x-secret")
        if merchant != self.merchant_id or secret != self.secret:
            return Response(status_code=401)
        return None

    async def _process(self, request: Request) -> Response:
        raw = await request.body()
        try:
            body = json.loads(raw, parse_float=Decimal)
        except ValueError:
            body = None
        self.requests.append(("POST", request.url.path, body))
        refused = self._refused(request)
        if refused is not None:
            return refused
        errors = _refusals(body)
        if errors:
            return _problem(400, "One or more validation errors occurred.", errors)
        transaction = FakeTransaction(
            id=str(uuid.uuid4()),
            payment_method=body["paymentMethod"],
            amount=Decimal(body["paymentDetails"]["amount"]),
            currency=body["paymentDetails"]["currency"],
            description=body.get("description"),
            return_url=body.get("return"),
            failed_url=body.get("failedUrl"),
            payload=body.get("payload"),
        )
        self.transactions[transaction.id] = transaction
        answer = {
            "paymentMethod": METHODS[transaction.payment_method],
            "transactionId": transaction.id,
            "redirect": f"{self.url}/pay?id={transaction.id}",
            "return": transaction.return_url,
            "paymentDetails": {"amount": transaction.amount, "currency": transaction.currency},
            "status": transaction.status,
            "expiresIn": self.expires_in,
            "merchantId": self.merchant_id,
        }
        return _json(200, answer)

    async def _transaction(self, request: Request) -> Response:
        transaction_id = request.path_params["transaction_id"]
        self.requests.append(("GET", request.url.path, None))
        refused = self._refused(request)
        if refused is not None:
            return refused
        transaction = self.transactions.get(transaction_id)
        if transaction is None:
            return _problem(404, "Transaction not found")
        answer = {
            "id": transaction.id,
            "status": transaction.status,
            "paymentDetails": {"amount": transaction.amount, "currency": transaction.currency},
            "merchantName": "Fake merchant",
            "mechantId": self.merchant_id,
            "paymentMethod": METHODS[transaction.payment_method],
            "expiresIn": self.expires_in,
            "return": transaction.return_url,
            "payload": transaction.payload,
            "description": transaction.description,
        }
        return _json(200, answer)


class PlategaFake:
    """The end-to-end scenarios' view of the fake: the cabinet tops up with ``platega``, SBP
    QR; paying confirms the transaction; notifications are Platega's callbacks, a forged one
    carries a wrong ``X-Secret``."""

    method, option = "platega", "2"

    def __init__(self, platega: FakePlatega, path: str = WEBHOOK_PATH) -> None:
        self.platega = platega
        self.path = path

    async def pay(self, provider_payment_id: str, paid_kopeks: int | None = None) -> None:
        self.platega.pay(provider_payment_id, paid_kopeks)

    def notification(self, provider_payment_id: str) -> Delivery:
        return Delivery(self.path, *self.platega.callback(provider_payment_id))

    def forged(self, provider_payment_id: str) -> Delivery:
        return Delivery(self.path, *self.platega.callback(provider_payment_id, secret=FORGED_SECRET))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "platega_env(**values): Platega settings for the test's app")


@pytest.fixture
async def fake_platega() -> AsyncIterator[FakePlatega]:
    """A loopback fake of Platega for one test (see the module's documentation)."""
    fake = FakePlatega()
    async with fake.server:
        yield fake


@pytest.fixture
def platega_env(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, fake_platega: FakePlatega
) -> dict[str, str]:
    """The environment pointing the plugin at ``fake_platega`` (``@pytest.mark.platega_env(...)``
    changes or adds settings; ``PLATEGA_SECRET=""`` leaves Platega unconfigured). Request it
    before ``app`` is built, e.g. from ``subsvc_settings_overrides``."""
    return marked_env(
        request, monkeypatch, "platega_env", {**fake_platega.env(), "PLATEGA_TIMEOUT_SECONDS": 3}
    )
