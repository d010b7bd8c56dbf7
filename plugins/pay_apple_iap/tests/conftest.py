"""Run pay_apple_iap with what it requires. ``apple``: the fake App Store Server API on
loopback, the app configured to use it (its key, its test root, two products); ``buyer``: a
user with a cabinet client and their appAccountToken."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from starlette.applications import Starlette
from subsvc_pay_apple_iap.settings import AppleIapSettings
from subsvc_pay_apple_iap.testing import BUNDLE, PRODUCT, PRODUCTS, FakeAppStore, TestPki
from subsvc_pay_apple_iap.tokens import account_token

from subsvc.testing_server import LoopbackServer


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["pay_apple_iap"]


@dataclass
class Apple:
    store: FakeAppStore
    server: LoopbackServer
    settings: AppleIapSettings


@pytest.fixture
async def apple(app: Starlette, change_settings: Callable[..., None]) -> AsyncIterator[Apple]:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode()
    pki = TestPki()
    store = FakeAppStore(pki, key.public_key(), key_id="KEY123", issuer="issuer-uuid", bundle=BUNDLE)
    async with LoopbackServer(store.app) as server:
        change_settings(
            AppleIapSettings,
            APPLE_IAP_ISSUER_ID="issuer-uuid",
            APPLE_IAP_KEY_ID="KEY123",
            APPLE_IAP_PRIVATE_KEY=pem,
            APPLE_IAP_BUNDLE_ID=BUNDLE,
            APPLE_IAP_PRODUCTS=PRODUCTS,
            APPLE_IAP_API_URL=server.url,
            APPLE_IAP_ROOT_CERTIFICATE=pki.root_pem,
            APPLE_IAP_ACCOUNT_TOKEN_SECRET="token-secret",
        )
        yield Apple(store, server, AppleIapSettings.of(app))


@dataclass
class Buyer:
    user: Any
    http: httpx2.AsyncClient
    token: str


@pytest.fixture
async def buyers(
    apple: Apple, insert_user: Any, cabinet: Any
) -> AsyncIterator[Callable[[], Awaitable[Buyer]]]:
    """``await buyers()``: a new user, its cabinet client (closed after the test) and token."""
    async with AsyncExitStack() as stack:

        async def make() -> Buyer:
            user = await insert_user()
            http = await stack.enter_async_context(cabinet(user.id))
            return Buyer(user, http, account_token(apple.settings, user.id))

        yield make


@pytest.fixture
async def buyer(buyers: Callable[[], Awaitable[Buyer]]) -> Buyer:
    return await buyers()


@pytest.fixture
def credited(apple: Apple) -> Callable[[Buyer], Awaitable[str]]:
    """``await credited(buyer)``: a purchase of ``PRODUCT`` bought and posted (200); its id."""

    async def buy(buyer: Buyer) -> str:
        transaction_id = apple.store.buy(PRODUCT, buyer.token)
        body = {"product_id": PRODUCT, "transaction_id": transaction_id}
        assert (await buyer.http.post("/cabinet/apple-purchase", json=body)).status_code == 200
        return transaction_id

    return buy
