"""Support's Apple IAP operations over HTTP: the search (transaction id, original id, user id)
and the reconciliation with Apple (revocations recorded once, differences reported, nothing
credited, Apple down 502)."""

from __future__ import annotations

import pytest
from subsvc_pay_apple_iap.models import AppleIapTransaction
from subsvc_payments.api import Payment

SEARCH = "/cabinet/admin/apple-iap/transactions"
RECONCILE = "/cabinet/admin/apple-iap/reconcile"


async def test_search_by_transaction_original_or_user(credited, apple, buyers, admin):
    first, second = await buyers(), await buyers()
    a, b = await credited(first), await credited(first)
    c = await credited(second)
    by_id = (await admin.get(SEARCH, params={"q": b})).json()["items"]
    assert [item["transaction_id"] for item in by_id] == [b]
    assert by_id[0]["user_id"] == first.user.id and by_id[0]["amount_kopeks"] == 10_000
    by_user = (await admin.get(SEARCH, params={"q": str(first.user.id)})).json()["items"]
    assert [item["transaction_id"] for item in by_user] == [b, a]  # newest first
    assert (await admin.get(SEARCH, params={"q": str(first.user.id), "limit": 1})).json()["items"][0][
        "transaction_id"
    ] == b
    assert (await admin.get(SEARCH, params={"q": c})).json()["items"][0]["original_transaction_id"] == c
    assert (await admin.get(SEARCH, params={"q": "99999999999999999999"})).json() == {"items": []}


@pytest.mark.parametrize("params", [{}, {"q": ""}, {"q": "x" * 129}, {"q": "1", "limit": 101}])
async def test_search_parameters_are_validated(apple, admin, params):
    assert (await admin.get(SEARCH, params=params)).status_code == 422


async def test_reconcile_records_a_missed_refund_once_and_reports_it(
    credited, apple, buyers, admin, rows, outbox
):
    buyer = await buyers()
    kept, refunded = await credited(buyer), await credited(buyer)
    apple.store.refund(refunded, reason=0)
    first = await admin.post(RECONCILE, params={"limit": 10})
    assert first.status_code == 200, first.text
    report = first.json()
    assert (report["checked"], report["drift_count"], report["notification_backlog"]) == (2, 1, 1)
    assert report["revoked"] == [refunded]
    assert report["differences"] == [
        {"transaction_id": refunded, "user_id": buyer.user.id, "differences": ["revoked at Apple"]}
    ]
    again = (await admin.post(RECONCILE)).json()
    assert (again["drift_count"], again["notification_backlog"], again["revoked"]) == (0, 0, [])
    states = {
        row.transaction_id: (row.status, row.reconciled_at is not None)
        for row in await rows(AppleIapTransaction)
    }
    assert states == {kept: ("credited", True), refunded: ("revoked", True)}
    assert len(await rows(Payment)) == 2  # nothing created, nothing credited
    revoked = [p for kind, p in await outbox() if kind == "apple_iap.transaction_revoked"]
    assert [(p["transaction_id"], p["source"]) for p in revoked] == [(refunded, "reconcile")]


async def test_reconcile_reports_a_transaction_apple_no_longer_knows(credited, apple, buyer, admin, rows):
    transaction_id = await credited(buyer)
    del apple.store.transactions[transaction_id]
    report = (await admin.post(RECONCILE)).json()
    assert report["differences"][0]["differences"] == ["missing at Apple"]
    (row,) = await rows(AppleIapTransaction)
    assert row.drift == "missing at Apple"


async def test_reconcile_only_the_most_recent(credited, apple, buyer, admin):
    for _ in range(3):
        await credited(buyer)
    requests = apple.store.requests
    assert (await admin.post(RECONCILE, params={"limit": 2})).json()["checked"] == 2
    assert apple.store.requests == requests + 2


async def test_reconcile_with_apple_down_is_502_and_records_nothing(credited, apple, buyer, admin, rows):
    await credited(buyer)
    apple.store.failing = 503
    r = await admin.post(RECONCILE)
    assert r.status_code == 502
    assert (await rows(AppleIapTransaction))[0].reconciled_at is None


@pytest.mark.parametrize(("method", "path"), [("GET", SEARCH + "?q=1"), ("POST", RECONCILE)])
async def test_unconfigured_answers_503(admin, method, path):
    r = await admin.request(method, path)
    assert r.status_code == 503
    assert r.json()["detail"].startswith("Apple In-App Purchase is not configured")


def test_the_permissions_are_payments_read_and_edit(app):
    permissions = {e.path: e.permission for e in app.state.endpoints if "apple-iap" in e.path}
    assert permissions == {
        "/cabinet/apple-iap/account-token": None,
        SEARCH: "payments:read",
        RECONCILE: "payments:edit",
    }
