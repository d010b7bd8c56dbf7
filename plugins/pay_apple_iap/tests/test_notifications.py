"""App Store Server Notifications V2 at /webhooks/payments/apple_iap: verified as Apple's
signed data (401 otherwise), a refund recorded on the transaction (the balance untouched),
repeats and replays changing nothing, never a credit."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from subsvc_pay_apple_iap.models import AppleIapTransaction
from subsvc_pay_apple_iap.testing import PRODUCT, TestPki

HOOK = "/webhooks/payments/apple_iap"


async def test_a_refund_is_recorded_and_the_balance_stays(
    credited, apple, buyer, anon_client, rows, outbox, balance_over_http
):
    transaction_id = await credited(buyer)
    apple.store.refund(transaction_id, reason=1)
    body = apple.store.notification("REFUND", transaction_id)
    answers = await asyncio.gather(*(anon_client.post(HOOK, content=body) for _ in range(3)))
    assert [a.status_code for a in answers] == [200] * 3
    assert answers[0].json() == {"status": "ok"}
    (row,) = await rows(AppleIapTransaction)
    assert (row.status, row.revocation_reason) == ("revoked", 1)
    assert row.revoked_at is not None
    assert [n["type"] for n in row.data["notifications"]] == ["REFUND"]  # the same one, kept once
    assert await balance_over_http(buyer.user) == 10_000  # nothing automatic
    revoked = [payload for kind, payload in await outbox() if kind == "apple_iap.transaction_revoked"]
    assert [(p["transaction_id"], p["source"]) for p in revoked] == [(transaction_id, "notification")]


async def test_a_reversed_refund_credits_the_row_again(credited, apple, buyer, anon_client, rows):
    transaction_id = await credited(buyer)
    apple.store.refund(transaction_id)
    assert (
        await anon_client.post(HOOK, content=apple.store.notification("REFUND", transaction_id))
    ).status_code == 200
    apple.store.transactions[transaction_id].pop("revocationDate")
    reversed_ = apple.store.notification("REFUND_REVERSED", transaction_id)
    assert (await anon_client.post(HOOK, content=reversed_)).status_code == 200
    (row,) = await rows(AppleIapTransaction)
    assert (row.status, row.revoked_at) == ("credited", None)


async def test_a_consumption_request_is_noted(credited, apple, buyer, anon_client, rows):
    transaction_id = await credited(buyer)
    body = apple.store.notification("CONSUMPTION_REQUEST", transaction_id)
    assert (await anon_client.post(HOOK, content=body)).status_code == 200
    (row,) = await rows(AppleIapTransaction)
    assert row.consumption_requested_at is not None and row.status == "credited"


@pytest.mark.parametrize(
    ("make", "status", "reason"),
    [
        (lambda s, t: s.notification("REFUND", t, signer=TestPki("Forged Root")), 401, "untrusted_signature"),
        (lambda s, t: s.notification("REFUND", t, signer=TestPki(markers=False)), 401, "untrusted_signature"),
        (
            lambda s, t: s.notification("REFUND", t, signed_at=datetime.now(UTC) - timedelta(days=5)),
            401,
            "stale",
        ),
        (lambda s, t: b"not json", 400, "not_json"),
        (lambda s, t: b'{"signedPayload": 5}', 400, "no_signed_payload"),
        (lambda s, t: b'{"signedPayload": "a.b.c"}', 401, "untrusted_signature"),
    ],
    ids=["forged", "unmarked-chain", "replayed-late", "not-json", "no-payload", "garbage-jws"],
)
async def test_untrusted_notifications_are_refused_and_change_nothing(
    credited, apple, buyer, anon_client, rows, make, status, reason
):
    transaction_id = await credited(buyer)
    apple.store.refund(transaction_id)
    r = await anon_client.post(HOOK, content=make(apple.store, transaction_id))
    assert r.status_code == status
    assert r.json()["status"] == "error" and r.json()["reason"].startswith(reason)
    (row,) = await rows(AppleIapTransaction)
    assert row.status == "credited"


async def test_a_forged_inner_transaction_is_refused(credited, apple, buyer, anon_client, rows):
    transaction_id = await credited(buyer)
    apple.store.refund(transaction_id)
    apple.store.forger = TestPki("Forged Root")  # the outer payload genuine, the transaction not
    r = await anon_client.post(HOOK, content=apple.store.notification("REFUND", transaction_id))
    assert r.status_code == 401
    assert (await rows(AppleIapTransaction))[0].status == "credited"


@pytest.mark.parametrize("kind", ["TEST", "ONE_TIME_CHARGE", "REFUND_DECLINED"])
async def test_other_notifications_are_answered_200(credited, apple, buyer, anon_client, rows, kind):
    transaction_id = await credited(buyer)
    r = await anon_client.post(HOOK, content=apple.store.notification(kind, transaction_id))
    assert r.status_code == 200
    assert (await rows(AppleIapTransaction))[0].status == "credited"


async def test_another_apps_and_unknown_transactions_are_answered_200(apple, buyer, anon_client):
    foreign = apple.store.buy(PRODUCT, buyer.token)
    other_app = apple.store.notification("REFUND", foreign, bundle="com.other.app")
    assert (await anon_client.post(HOOK, content=other_app)).status_code == 200
    unknown = apple.store.notification("REFUND", foreign)  # never posted to us: not credited here
    assert (await anon_client.post(HOOK, content=unknown)).json() == {"status": "ok"}


async def test_unconfigured_answers_503(anon_client):
    r = await anon_client.post(HOOK, content=b"{}")
    assert r.status_code == 503
    assert r.json() == {"status": "error", "reason": "not_configured"}
