"""The user's ``appAccountToken``: the app passes it to StoreKit when it buys, Apple signs it
into the transaction, and a purchase is credited only to the user whose token it carries.

It is the UUIDv5 of the user's id in a namespace that is itself an HMAC-SHA256 of
``APPLE_IAP_ACCOUNT_TOKEN_SECRET`` (else of a digest of the private key): the same on every
call and every instance, different per user and per deployment, and not computable from a
user id without the secret."""

from __future__ import annotations

import hashlib
import hmac
import uuid

from subsvc_pay_apple_iap.settings import AppleIapSettings

LABEL = b"subsvc pay_apple_iap appAccountToken"


def account_token(settings: AppleIapSettings, user_id: int) -> str:
    """The user's token (lower-case UUID text, as Apple returns it)."""
    secret = settings.APPLE_IAP_ACCOUNT_TOKEN_SECRET
    if not secret:
        secret = hashlib.sha256(LABEL + (settings.APPLE_IAP_PRIVATE_KEY or "").encode()).hexdigest()
    namespace = uuid.UUID(bytes=hmac.new(secret.encode(), LABEL, hashlib.sha256).digest()[:16])
    return str(uuid.uuid5(namespace, str(user_id)))


def same_token(a: str | None, b: str) -> bool:
    """Whether ``a`` (as a transaction carries it) is the token ``b``, whatever its case."""
    try:
        return a is not None and uuid.UUID(a) == uuid.UUID(b)
    except ValueError:
        return False
