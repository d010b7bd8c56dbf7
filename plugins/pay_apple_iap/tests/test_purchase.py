"""POST /cabinet/apple-purchase and the account token over HTTP, against the fake App Store
Server API: credited once, every refusal with its status, Apple's failures 502."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from subsvc_pay_apple_iap.models import AppleIapTransaction
from subsvc_pay_apple_iap.testing import PRODUCT, TestPki
from subsvc_payments.api import Payment

PURCHASE = "/cabinet/apple-purchase"


def _body(transaction_id: str, product: str = PRODUCT) -> dict:
    return {"product_id": product, "transaction_id": transaction_id}


async def test_the_account_token_is_a_stable_uuid_per_user(apple, buyers):
    first, second = await buyers(), await buyers()
    answers = [(await b.http.get("/cabinet/apple-iap/account-token")).json() for b in (first, first, second)]
    assert answers[0] == answers[1] == {"app_account_token": first.token}
    assert uuid.UUID(first.token).version == 5
    assert answers[2]["app_account_token"] != first.token


async def test_a_purchase_is_credited_and_recorded(apple, buyer, rows, balance_over_http):
    transaction_id = apple.store.buy(PRODUCT, buyer.token)
    r = await buyer.http.post(PURCHASE, json=_body(transaction_id))
    assert r.status_code == 200, r.text
    assert r.json() == {"success": True}
    assert await balance_over_http(buyer.user) == 10_000
    (payment,) = await rows(Payment)
    assert (payment.provider, payment.provider_payment_id, payment.status) == (
        "apple_iap",
        transaction_id,
        "succeeded",
    )
    assert (payment.amount_kopeks, payment.paid_amount_kopeks, payment.currency) == (10_000, 10_000, "RUB")
    (row,) = await rows(AppleIapTransaction)
    assert (row.payment_id, row.user_id, row.product_id, row.status) == (
        payment.id,
        buyer.user.id,
        PRODUCT,
        "credited",
    )
    assert (row.price, row.currency, row.environment) == (990_000, "RUB", "Sandbox")


async def test_posting_it_again_credits_nothing_more(apple, buyer, rows, balance_over_http):
    transaction_id = apple.store.buy(PRODUCT, buyer.token)
    for _ in range(3):
        assert (await buyer.http.post(PURCHASE, json=_body(transaction_id))).json() == {"success": True}
    assert await balance_over_http(buyer.user) == 10_000
    assert len(await rows(Payment)) == len(await rows(AppleIapTransaction)) == 1


@pytest.mark.parametrize(
    ("buy", "product", "status", "detail"),
    [
        ({}, "com.example.vpn.unknown", 400, "Unknown Apple product: com.example.vpn.unknown"),
        (
            {"product_id": "com.example.vpn.topup.500"},
            PRODUCT,
            400,
            "The transaction bought com.example.vpn.topup.500",
        ),
        ({"bundle": "com.other.app"}, PRODUCT, 400, "The transaction is of another app (com.other.app)"),
        ({"type": "Non-Consumable"}, PRODUCT, 400, "Only consumable products top up the balance"),
        ({"app_account_token": None}, PRODUCT, 400, "The transaction carries no appAccountToken"),
        (
            {"app_account_token": str(uuid.uuid4())},
            PRODUCT,
            409,
            "The transaction belongs to another account",
        ),
    ],
    ids=["unknown-product", "other-product", "other-app", "not-consumable", "no-token", "wrong-token"],
)
async def test_refusals(apple, buyer, rows, buy, product, status, detail):
    options = {"product_id": PRODUCT, "app_account_token": buyer.token, **buy}
    transaction_id = apple.store.buy(options.pop("product_id"), options.pop("app_account_token"), **options)
    r = await buyer.http.post(PURCHASE, json=_body(transaction_id, product))
    assert r.status_code == status
    assert r.json()["detail"].startswith(detail), r.json()
    assert await rows(Payment) == []


async def test_another_users_transaction_is_refused(apple, buyers, balance_over_http):
    owner, thief = await buyers(), await buyers()
    transaction_id = apple.store.buy(PRODUCT, owner.token)
    assert (await owner.http.post(PURCHASE, json=_body(transaction_id))).status_code == 200
    r = await thief.http.post(PURCHASE, json=_body(transaction_id))
    assert r.status_code == 409
    assert r.json() == {"detail": "The transaction belongs to another account"}
    assert await balance_over_http(thief.user) == 0


async def test_a_revoked_transaction_is_refused(apple, buyer, rows):
    transaction_id = apple.store.buy(PRODUCT, buyer.token)
    apple.store.refund(transaction_id)
    r = await buyer.http.post(PURCHASE, json=_body(transaction_id))
    assert r.status_code == 409
    assert r.json()["detail"].startswith("Apple revoked this transaction")
    assert await rows(Payment) == []


@pytest.mark.parametrize("transaction_id", ["2000000999999999", "12ab", "../../x"])
async def test_an_unknown_or_malformed_transaction_is_400(apple, buyer, transaction_id):
    r = await buyer.http.post(PURCHASE, json=_body(transaction_id))
    assert r.status_code == 400
    assert r.json()["detail"] in (
        f"Apple knows no transaction {transaction_id}",
        "An Apple transaction id is a number",
    )


@pytest.mark.parametrize(
    ("fault", "detail"),
    [
        ("forged", "Apple's answer for transaction"),
        ("unmarked", "Apple's answer for transaction"),
        ("down", "apple_iap GET"),
        ("500", "apple_iap GET"),
        ("credentials", "Apple refused our credentials"),
    ],
)
async def test_apple_failing_is_502_and_credits_nothing(apple, buyer, rows, change_settings, fault, detail):
    transaction_id = apple.store.buy(PRODUCT, buyer.token)
    if fault == "forged":
        apple.store.forger = TestPki("Forged Root")  # a chain to a root we do not trust
    elif fault == "unmarked":
        apple.store.forger = TestPki(markers=False)  # no Apple marker extensions
        change_settings(type(apple.settings), APPLE_IAP_ROOT_CERTIFICATE=apple.store.forger.root_pem)
    elif fault == "down":
        await apple.server.stop()
    elif fault == "500":
        apple.store.failing = 500
    else:
        change_settings(type(apple.settings), APPLE_IAP_KEY_ID="OTHER")
    r = await buyer.http.post(PURCHASE, json=_body(transaction_id))
    assert r.status_code == 502
    assert detail in r.json()["detail"]
    assert await rows(Payment) == []


async def test_our_api_token_is_what_apple_checks(apple, buyer):
    transaction_id = apple.store.buy(PRODUCT, buyer.token)
    assert (await buyer.http.post(PURCHASE, json=_body(transaction_id))).status_code == 200
    assert apple.store.requests == 1 and apple.store.refused == []


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("GET", "/cabinet/apple-iap/account-token", {}),
        ("POST", PURCHASE, {"json": _body("1")}),
    ],
)
async def test_unconfigured_answers_503(member, method, path, kwargs):
    r = await member.request(method, path, **kwargs)
    assert r.status_code == 503
    assert r.json()["detail"].startswith("Apple In-App Purchase is not configured: set APPLE_IAP_ISSUER_ID")


async def test_the_request_is_validated(apple, buyer):
    r = await buyer.http.post(PURCHASE, json={"product_id": PRODUCT, "transaction_id": "1" * 65})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "transaction_id"]


async def test_five_concurrent_posts_credit_once(apple, buyer, rows, balance_over_http):
    transaction_id = apple.store.buy(PRODUCT, buyer.token)
    answers = await asyncio.gather(*(buyer.http.post(PURCHASE, json=_body(transaction_id)) for _ in range(5)))
    assert [a.status_code for a in answers] == [200] * 5, [a.text for a in answers]
    assert await balance_over_http(buyer.user) == 10_000
    assert len(await rows(Payment)) == len(await rows(AppleIapTransaction)) == 1
