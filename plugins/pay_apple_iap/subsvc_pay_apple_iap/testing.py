"""A loopback fake of the App Store Server API, for tests (in this package so the plugin's tests
and others can use it): it speaks Apple's protocol — ``GET /inApps/v1/transactions/{id}``
with a bearer JWT checked against the in-app purchase key's public key (ES256, ``kid``, ``iss``,
``aud: appstoreconnect-v1``, ``bid``, at most 60 minutes; 401 otherwise), ``404`` with Apple's
error code for an unknown transaction, and answers signed as Apple signs them: a JWS with an
``x5c`` chain (signing certificate, intermediate, root) of a test PKI made here, with Apple's
marker extensions. Server notifications V2 are built the same way.

    pki = TestPki()                       # its root is what the app trusts in the test
    store = FakeAppStore(pki, key.public_key(), key_id="KEY1", issuer="issuer", bundle="com.example")
    async with LoopbackServer(store.app) as server: ...
"""

from __future__ import annotations

import base64
import itertools
import json
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding
from cryptography.x509.oid import NameOID
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from subsvc_pay_apple_iap.client import AUDIENCE, CONSUMABLE
from subsvc_pay_apple_iap.jws import INTERMEDIATE_MARKER, LEAF_MARKER

BUNDLE = "com.example.vpn"
PRODUCT = "com.example.vpn.topup.100"
PRODUCTS = {PRODUCT: 10_000, "com.example.vpn.topup.500": 50_000}
"""A test app's bundle id and products (what each credits, in kopeks)."""
NOT_FOUND = {"errorCode": 4040010, "errorMessage": "Transaction id not found."}


def _milliseconds(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _certificate(
    subject: str, key: ec.EllipticCurvePrivateKey, issuer: str, issuer_key: ec.EllipticCurvePrivateKey,
    *, ca: bool, marker: x509.ObjectIdentifier | None, days: int = 365,
) -> x509.Certificate:  # fmt: skip
    now = datetime.now(UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if marker is not None:
        builder = builder.add_extension(x509.UnrecognizedExtension(marker, b"\x05\x00"), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


class TestPki:
    """A root, an intermediate and a signing certificate shaped like Apple's (the marker
    extensions unless ``markers=False``): :meth:`sign` makes a JWS Apple's way."""

    __test__ = False  # not a test class

    def __init__(self, name: str = "Test Root CA", *, markers: bool = True) -> None:
        root_key, middle_key = (
            ec.generate_private_key(ec.SECP384R1()),
            ec.generate_private_key(ec.SECP256R1()),
        )
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.root = _certificate(name, root_key, name, root_key, ca=True, marker=None)
        self.intermediate = _certificate(
            "Test WWDR", middle_key, name, root_key, ca=True, marker=INTERMEDIATE_MARKER if markers else None
        )
        self.leaf = _certificate(
            "Test App Store",
            self.key,
            "Test WWDR",
            middle_key,
            ca=False,
            marker=LEAF_MARKER if markers else None,
        )

    @property
    def root_pem(self) -> str:
        return self.root.public_bytes(Encoding.PEM).decode()

    def sign(self, payload: Mapping[str, Any]) -> str:
        """``payload`` as a JWS signed by the signing certificate, the chain in ``x5c``."""
        chain = [
            base64.b64encode(c.public_bytes(Encoding.DER)).decode()
            for c in (self.leaf, self.intermediate, self.root)
        ]
        return jwt.encode(dict(payload), self.key, algorithm="ES256", headers={"x5c": chain})


class FakeAppStore:
    """The App Store Server API of one app: transactions bought (:meth:`buy`), refunded
    (:meth:`refund`), served signed by ``pki`` (or by ``forger`` while it is set); ``failing``
    answers every request with that status. ``requests`` counts the authorised ones."""

    def __init__(
        self, pki: TestPki, public_key: ec.EllipticCurvePublicKey, *, key_id: str, issuer: str, bundle: str
    ) -> None:
        self.pki, self.public_key = pki, public_key
        self.key_id, self.issuer, self.bundle = key_id, issuer, bundle
        self.transactions: dict[str, dict[str, Any]] = {}
        self.forger: TestPki | None = None
        self.failing: int | None = None
        self.requests = 0
        self.refused: list[str] = []
        self._ids = itertools.count(2_000_000_000_000_001)
        self.app = Starlette(routes=[Route("/inApps/v1/transactions/{transaction_id}", self._transaction)])

    def buy(
        self,
        product_id: str,
        app_account_token: str | None,
        *,
        type: str = CONSUMABLE,
        bundle: str | None = None,
        price: int = 990_000,
        currency: str = "RUB",
    ) -> str:
        """A purchase made in the app: its transaction id."""
        transaction_id = str(next(self._ids))
        now = _milliseconds(datetime.now(UTC))
        payload: dict[str, Any] = {
            "transactionId": transaction_id,
            "originalTransactionId": transaction_id,
            "bundleId": bundle or self.bundle,
            "productId": product_id,
            "purchaseDate": now,
            "originalPurchaseDate": now,
            "quantity": 1,
            "type": type,
            "inAppOwnershipType": "PURCHASED",
            "signedDate": now,
            "environment": "Sandbox",
            "transactionReason": "PURCHASE",
            "storefront": "RUS",
            "price": price,
            "currency": currency,
        }
        if app_account_token is not None:
            payload["appAccountToken"] = app_account_token
        self.transactions[transaction_id] = payload
        return transaction_id

    def refund(self, transaction_id: str, reason: int = 0) -> None:
        """Apple refunds the transaction (its revocation date and reason set)."""
        self.transactions[transaction_id] |= {
            "revocationDate": _milliseconds(datetime.now(UTC)),
            "revocationReason": reason,
        }

    def signed_transaction(self, transaction_id: str) -> str:
        payload = {**self.transactions[transaction_id], "signedDate": _milliseconds(datetime.now(UTC))}
        return (self.forger or self.pki).sign(payload)

    def notification(
        self,
        kind: str,
        transaction_id: str,
        *,
        subtype: str | None = None,
        signed_at: datetime | None = None,
        bundle: str | None = None,
        signer: TestPki | None = None,
    ) -> bytes:
        """An App Store Server Notification V2 body, as Apple posts it."""
        payload = {
            "notificationType": kind,
            "subtype": subtype,
            "notificationUUID": str(uuid.uuid4()),
            "version": "2.0",
            "signedDate": _milliseconds(signed_at or datetime.now(UTC)),
            "data": {
                "bundleId": bundle or self.bundle,
                "environment": "Sandbox",
                "signedTransactionInfo": self.signed_transaction(transaction_id),
            },
        }
        return json.dumps({"signedPayload": (signer or self.pki).sign(payload)}).encode()

    def _authorised(self, request: Request) -> bool:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme != "Bearer":
            return False
        try:
            header = jwt.get_unverified_header(token)
            claims = jwt.decode(
                token,
                self.public_key,
                algorithms=["ES256"],
                audience=AUDIENCE,
                options={"require": ["exp", "iat"]},
            )
        except jwt.InvalidTokenError as exc:
            self.refused.append(str(exc))
            return False
        checks = {
            "kid": header.get("kid") == self.key_id,
            "iss": claims.get("iss") == self.issuer,
            "bid": claims.get("bid") == self.bundle,
            "lifetime": claims["exp"] - claims["iat"] <= 3600,
        }
        self.refused.extend(name for name, ok in checks.items() if not ok)
        return all(checks.values())

    async def _transaction(self, request: Request) -> Response:
        if not self._authorised(request):
            return Response(status_code=401)
        self.requests += 1
        if self.failing is not None:
            return JSONResponse(
                {"errorCode": 5000000, "errorMessage": "An unknown error occurred."}, self.failing
            )
        transaction_id = request.path_params["transaction_id"]
        if transaction_id not in self.transactions:
            return JSONResponse(NOT_FOUND, status_code=404)
        return JSONResponse({"signedTransactionInfo": self.signed_transaction(transaction_id)})
