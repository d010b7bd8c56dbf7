"""The user's pending payments and their check, through the test provider plugin: listed
newest first and paginated, read one by one (404 for another user's), checked at the provider
(paid credits once, however many checks race), expired by the job, credited late and flagged."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta
from typing import Any

from subsvc_payments.api import CANCELED, EXPIRED, PENDING, SUCCEEDED, Payment
from subsvc_payments.jobs import EXPIRE_JOB, POLL_JOB, expire_due, expire_pending, poll_pending
from subsvc_payments.plugin import plugin
from subsvc_payments.settings import PaymentsSettings
from subsvc_payments.testing import topup

from subsvc.db import utcnow

PENDING_URL = "/cabinet/balance/pending-payments"


async def _topup(http: Any, amount: int = 50_000) -> int:
    return int((await topup(http, "fakepay", amount))["payment_id"])


async def test_pending_payments_newest_first_paginated_and_per_user(insert_user, cabinet, fake_provider):
    ann, bob = await insert_user(), await insert_user()
    async with cabinet(ann.id) as http:
        ids = [await _topup(http, 10_000 * (i + 1)) for i in range(3)]
        fake_provider.states[f"fp-{ids[0]}"] = fake_provider.states[f"fp-{ids[0]}"].__class__("canceled")
        assert (await http.post(f"{PENDING_URL}/fakepay/{ids[0]}/check")).json()["new_status"] == CANCELED
        first = (await http.get(PENDING_URL, params={"per_page": 1})).json()
        second = (await http.get(PENDING_URL, params={"per_page": 1, "page": 2})).json()
        assert (await http.get(PENDING_URL, params={"per_page": 51})).status_code == 422
    assert (first["total"], first["page"], first["per_page"], first["pages"]) == (2, 1, 1, 2)
    assert [item["id"] for item in first["items"] + second["items"]] == [ids[2], ids[1]]
    item = first["items"][0]
    assert item | {"created_at": None, "expires_at": None} == {
        "id": ids[2],
        "method": "fakepay",
        "method_display": "Fake card",
        "identifier": f"fp-{ids[2]}",
        "amount_kopeks": 30_000,
        "amount_rubles": 300.0,
        "status": PENDING,
        "status_emoji": "⏳",
        "status_text": "Ожидает оплаты",
        "is_paid": False,
        "is_checkable": True,
        "created_at": None,
        "expires_at": None,
        "payment_url": f"https://pay.example/fp-{ids[2]}",
        "user_id": ann.id,
        "user_messenger_id": None,
        "user_username": None,
    }
    async with cabinet(bob.id) as http:
        assert (await http.get(PENDING_URL)).json() == {
            "items": [],
            "total": 0,
            "page": 1,
            "per_page": 10,
            "pages": 1,
        }


async def test_latest_and_one_payment_are_the_users_own(insert_user, cabinet, fake_provider):
    ann, bob = await insert_user(), await insert_user()
    async with cabinet(ann.id) as http:
        assert (await http.get(f"{PENDING_URL}/fakepay/latest")).status_code == 404
        older, newest = await _topup(http), await _topup(http, 20_000)
        latest = await http.get(f"{PENDING_URL}/fakepay/latest")
        one = await http.get(f"{PENDING_URL}/fakepay/{older}")
        assert (await http.get(f"{PENDING_URL}/otherpay/{older}")).status_code == 404
        assert (await http.get(f"{PENDING_URL}/fakepay/{newest + 100}")).status_code == 404
    assert (latest.status_code, latest.json()["id"], latest.json()["amount_kopeks"]) == (200, newest, 20_000)
    assert (one.status_code, one.json()["id"]) == (200, older)
    async with cabinet(bob.id) as http:
        assert (await http.get(f"{PENDING_URL}/fakepay/{older}")).status_code == 404
        assert (await http.post(f"{PENDING_URL}/fakepay/{older}/check")).status_code == 404
        assert (await http.get(f"{PENDING_URL}/fakepay/latest")).status_code == 404


async def test_a_check_credits_a_paid_payment_once(
    insert_user, cabinet, fake_provider, balance_over_http, transactions_over_http, outbox
):
    user = await insert_user(balance_kopeks=100)
    async with cabinet(user.id) as http:
        payment_id = await _topup(http)
        check = f"{PENDING_URL}/fakepay/{payment_id}/check"
        unchanged = (await http.post(check)).json()
        fake_provider.pay(f"fp-{payment_id}", 50_000)
        paid = (await http.post(check)).json()
        after = (await http.post(check)).json()
    assert (unchanged["success"], unchanged["status_changed"], unchanged["message"]) == (
        True,
        False,
        "Статус не изменился",
    )
    assert (paid["success"], paid["status_changed"], paid["old_status"], paid["new_status"]) == (
        True,
        True,
        PENDING,
        SUCCEEDED,
    )
    assert paid["payment"]["is_paid"] and not paid["payment"]["is_checkable"]
    assert (after["success"], after["message"]) == (False, "Ручная проверка недоступна для этого платежа")
    assert fake_provider.fetched == 2
    assert await balance_over_http(user) == 50_100
    (deposit,) = await transactions_over_http(user)
    assert (deposit["amount_kopeks"], deposit["external_id"]) == (50_000, f"fp-{payment_id}")
    assert Counter(kind for kind, _ in await outbox())["balance.topped_up"] == 1


async def test_five_concurrent_checks_credit_once(
    db, insert_user, cabinet, fake_provider, balance_over_http, transactions_over_http
):
    user = await insert_user()
    async with cabinet(user.id) as http:
        payment_id = await _topup(http)
        fake_provider.pay(f"fp-{payment_id}", 50_000)
        check = f"{PENDING_URL}/fakepay/{payment_id}/check"
        if db.dialect == "postgresql":
            answers = await asyncio.gather(*(http.post(check) for _ in range(5)))
        else:  # SQLite writes one at a time: the checks follow one another
            answers = [await http.post(check) for _ in range(5)]
    assert [a.status_code for a in answers] == [200] * 5
    assert sum(a.json()["status_changed"] for a in answers) == 1
    assert await balance_over_http(user) == 50_000
    assert len(await transactions_over_http(user)) == 1


async def test_a_provider_down_on_check_answers_502_and_changes_nothing(
    insert_user, cabinet, fake_provider, reload
):
    user = await insert_user()
    async with cabinet(user.id) as http:
        payment_id = await _topup(http)
        fake_provider.down = True
        response = await http.post(f"{PENDING_URL}/fakepay/{payment_id}/check")
    assert response.status_code == 502
    assert response.json() == {"detail": "Payment provider fakepay failed to report the payment: timed out"}
    assert (await reload(Payment, payment_id)).status == PENDING


async def test_the_job_expires_due_payments_and_a_late_payment_is_credited_and_flagged(
    app, insert_user, cabinet, fake_provider, reload, balance_over_http, outbox
):
    user = await insert_user()
    async with cabinet(user.id) as http:
        fresh = await _topup(http)
        fake_provider.expires_at = utcnow() - timedelta(minutes=1)
        due = await _topup(http)
        assert await expire_due(app) == 1
        assert await expire_due(app) == 0
        listed = (await http.get(PENDING_URL)).json()
        assert [item["id"] for item in listed["items"]] == [fresh]
        expired = (await http.get(f"{PENDING_URL}/fakepay/{due}")).json()
        assert (expired["status"], expired["is_checkable"]) == (EXPIRED, True)
        fake_provider.pay(f"fp-{due}", 50_000)
        paid = (await http.post(f"{PENDING_URL}/fakepay/{due}/check")).json()
    assert (paid["old_status"], paid["new_status"]) == (EXPIRED, SUCCEEDED)
    stored = await reload(Payment, due)
    assert (stored.status, stored.flagged_late) == (SUCCEEDED, True)
    assert (await reload(Payment, fresh)).status == PENDING
    assert await balance_over_http(user) == 50_000
    ours = ("payment.failed", "payment.succeeded")
    events = [(kind, payload["payment_id"]) for kind, payload in await outbox() if kind in ours]
    assert events == [("payment.failed", due), ("payment.succeeded", due)]


def test_the_jobs_are_declared_with_their_intervals(app, change_settings):
    expiry, polling = plugin.jobs
    assert [(job.name, job.run) for job in plugin.jobs] == [
        (EXPIRE_JOB, expire_pending),
        (POLL_JOB, poll_pending),
    ]
    assert callable(expiry.every) and expiry.every(app) == 60
    assert callable(polling.every) and polling.every(app) == 300
    change_settings(PaymentsSettings, PAYMENTS_EXPIRE_INTERVAL_SECONDS=0, PAYMENTS_POLL_INTERVAL_SECONDS=0)
    assert (expiry.every(app), polling.every(app)) == (None, None)
