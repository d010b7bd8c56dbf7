"""The App Store Server API: requests signed with the in-app purchase key (an ES256 JWT),
answers verified as Apple's signed data (:mod:`subsvc_pay_apple_iap.jws`) and read as
:class:`AppleTransaction`. Apple down, refusing our credentials or answering unsigned data
is a :class:`ProviderError` (answered 502); an unknown transaction :class:`TransactionNotFound`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any
from urllib.parse import quote

import jwt
from cryptography import x509
from starlette.applications import Starlette
from subsvc_payments.api import ProviderError, ProviderRefused, provider_http

from subsvc.db import utcnow
from subsvc_pay_apple_iap.jws import UntrustedSignature, trusted_root, verify
from subsvc_pay_apple_iap.settings import AppleIapSettings

NAME = "apple_iap"
AUDIENCE = "appstoreconnect-v1"
TOKEN_SECONDS = 20 * 60
"""Lifetime of our API token (Apple refuses more than 60 minutes)."""
CONSUMABLE = "Consumable"
CREDENTIALS = "APPLE_IAP_ISSUER_ID, APPLE_IAP_KEY_ID, APPLE_IAP_PRIVATE_KEY, APPLE_IAP_BUNDLE_ID"


class TransactionNotFound(LookupError):
    """Apple knows no transaction with this id (in the environment of the configured URL)."""


class UntrustedAnswer(ProviderError):
    """Apple's API answered data that is not signed by Apple."""


@dataclass(frozen=True)
class AppleTransaction:
    """What a verified ``JWSTransactionDecodedPayload`` says (``price`` in milli-units of
    ``currency``, as Apple gives it); ``raw`` is the whole payload."""

    transaction_id: str
    original_transaction_id: str
    bundle_id: str
    product_id: str
    type: str
    app_account_token: str | None
    price: int | None
    currency: str | None
    environment: str
    purchased_at: datetime | None
    revoked_at: datetime | None
    revocation_reason: int | None
    raw: dict[str, Any]


def apple_time(milliseconds: Any) -> datetime | None:
    """A time as Apple gives it (milliseconds since the epoch), else ``None``."""
    if isinstance(milliseconds, int | float) and not isinstance(milliseconds, bool):
        return datetime.fromtimestamp(milliseconds / 1000, UTC)
    return None


def _text(payload: dict[str, Any], name: str) -> str | None:
    value = payload.get(name)
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None


def read_transaction(payload: dict[str, Any]) -> AppleTransaction:
    """The transaction a verified payload describes; :class:`UntrustedSignature` when it lacks
    the transaction's id, bundle or product."""
    transaction_id, bundle_id, product_id = (
        _text(payload, n) for n in ("transactionId", "bundleId", "productId")
    )
    if not (transaction_id and bundle_id and product_id):
        raise UntrustedSignature("the signed transaction lacks its transactionId, bundleId or productId")
    price = payload.get("price")
    reason = payload.get("revocationReason")
    return AppleTransaction(
        transaction_id=transaction_id,
        original_transaction_id=_text(payload, "originalTransactionId") or transaction_id,
        bundle_id=bundle_id,
        product_id=product_id,
        type=_text(payload, "type") or "",
        app_account_token=_text(payload, "appAccountToken"),
        price=price if isinstance(price, int) and not isinstance(price, bool) else None,
        currency=_text(payload, "currency"),
        environment=_text(payload, "environment") or "",
        purchased_at=apple_time(payload.get("purchaseDate")),
        revoked_at=apple_time(payload.get("revocationDate")),
        revocation_reason=reason if isinstance(reason, int) and not isinstance(reason, bool) else None,
        raw=payload,
    )


@lru_cache(maxsize=4)
def _root(pem: str | None) -> x509.Certificate:
    return trusted_root(pem)


class AppStoreClient:
    """The app's client of the App Store Server API at ``APPLE_IAP_API_URL``."""

    def __init__(self, app: Starlette, settings: AppleIapSettings) -> None:
        self.settings = settings
        self.http = provider_http(app, NAME, settings.APPLE_IAP_API_URL, settings.APPLE_IAP_TIMEOUT_SECONDS)

    def bearer(self) -> str:
        """A fresh API token: ES256, ``kid`` the key id; issuer, audience and bundle id claimed."""
        now = int(time.time())
        claims = {
            "iss": self.settings.APPLE_IAP_ISSUER_ID,
            "iat": now,
            "exp": now + TOKEN_SECONDS,
            "aud": AUDIENCE,
            "bid": self.settings.APPLE_IAP_BUNDLE_ID,
        }
        key = self.settings.APPLE_IAP_PRIVATE_KEY or ""
        return jwt.encode(claims, key, algorithm="ES256", headers={"kid": self.settings.APPLE_IAP_KEY_ID})

    def verified(self, token: str) -> dict[str, Any]:
        """The payload of Apple's signed data (:class:`UntrustedSignature` if it is not)."""
        return verify(token, _root(self.settings.APPLE_IAP_ROOT_CERTIFICATE), utcnow())

    async def transaction(self, transaction_id: str) -> AppleTransaction:
        """``GET /inApps/v1/transactions/{transactionId}``, verified and read."""
        path = f"/inApps/v1/transactions/{quote(transaction_id, safe='')}"
        try:
            body = await self.http.call("GET", path, headers={"Authorization": f"Bearer {self.bearer()}"})
        except ProviderRefused as refused:
            raise _refusal(refused, transaction_id) from None
        signed = body.get("signedTransactionInfo") if isinstance(body, dict) else None
        if not isinstance(signed, str):
            raise UntrustedAnswer("Apple answered the transaction without its signedTransactionInfo")
        try:
            return read_transaction(self.verified(signed))
        except UntrustedSignature as exc:
            raise UntrustedAnswer(
                f"Apple's answer for transaction {transaction_id} is not Apple's: {exc}"
            ) from None


def _refusal(refused: ProviderRefused, transaction_id: str) -> Exception:
    if refused.status in (400, 404):  # an invalid id, or none Apple knows
        return TransactionNotFound(transaction_id)
    if refused.status == 401:
        return ProviderError(f"Apple refused our credentials: check {CREDENTIALS}")
    if refused.status == 429:
        return ProviderError("Apple's rate limit is reached: try again later")
    return ProviderError(f"Apple refused the request ({refused.status})")
