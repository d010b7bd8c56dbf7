"""The purchase scenarios over real HTTP (the shared top-up scenarios assume a redirect URL,
which Apple IAP has not): our app on a loopback uvicorn, the fake App Store Server API beside
it; five concurrent posts credit once, a forged answer, another account's token and a revoked
transaction are refused, Apple down is 502, a refund notified is recorded."""

from __future__ import annotations

import asyncio
import uuid

import httpx2
import pytest
from subsvc_pay_apple_iap.models import AppleIapTransaction
from subsvc_pay_apple_iap.testing import PRODUCT, TestPki

from subsvc.services import services
from subsvc.testing_server import LoopbackServer


@pytest.fixture
async def e2e(app, apple, insert_user):
    """(our server's URL, a cabinet client over HTTP, the user, their token)."""
    user = await insert_user()
    token = services(app).jwt.access_token(user.id)
    async with (
        LoopbackServer(app) as server,
        httpx2.AsyncClient(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as http,
    ):
        yield server.url, http, user, apple.settings


async def _post(http, transaction_id):
    return await http.post(
        "/cabinet/apple-purchase", json={"product_id": PRODUCT, "transaction_id": transaction_id}
    )


async def test_five_concurrent_posts_credit_once(e2e, apple, balance_over_http, transactions_over_http):
    _, http, user, _ = e2e
    token = (await http.get("/cabinet/apple-iap/account-token")).json()["app_account_token"]
    transaction_id = apple.store.buy(PRODUCT, token)
    answers = await asyncio.gather(*(_post(http, transaction_id) for _ in range(5)))
    assert [a.status_code for a in answers] == [200] * 5, [a.text for a in answers]
    assert await balance_over_http(user) == 10_000
    deposits = [t for t in await transactions_over_http(user) if t["type"] == "deposit"]
    assert [(d["amount_kopeks"], d["payment_method"]) for d in deposits] == [(10_000, "apple_iap")]


@pytest.mark.parametrize("fault", ["forged", "wrong-token", "revoked", "apple-down"])
async def test_refused_purchases_credit_nothing(e2e, apple, balance_over_http, fault):
    _, http, user, _ = e2e
    token = (await http.get("/cabinet/apple-iap/account-token")).json()["app_account_token"]
    transaction_id = apple.store.buy(PRODUCT, str(uuid.uuid4()) if fault == "wrong-token" else token)
    if fault == "forged":
        apple.store.forger = TestPki("Forged Root")
    elif fault == "revoked":
        apple.store.refund(transaction_id)
    elif fault == "apple-down":
        await apple.server.stop()
    answer = await _post(http, transaction_id)
    assert answer.status_code == {"forged": 502, "wrong-token": 409, "revoked": 409, "apple-down": 502}[fault]
    assert await balance_over_http(user) == 0


async def test_a_refund_notified_over_http_is_recorded(e2e, apple, rows, balance_over_http):
    url, http, user, _ = e2e
    token = (await http.get("/cabinet/apple-iap/account-token")).json()["app_account_token"]
    transaction_id = apple.store.buy(PRODUCT, token)
    assert (await _post(http, transaction_id)).status_code == 200
    apple.store.refund(transaction_id)
    async with httpx2.AsyncClient(base_url=url) as apple_sender:
        answer = await apple_sender.post(
            "/webhooks/payments/apple_iap", content=apple.store.notification("REFUND", transaction_id)
        )
    assert answer.status_code == 200
    (row,) = await rows(AppleIapTransaction)
    assert row.status == "revoked"
    assert await balance_over_http(user) == 10_000
