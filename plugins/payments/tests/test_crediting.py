"""The crediting pipeline: a paid payment credits its user once, refuses a mismatch, credits
a late payment once and flags it; observed over the Web API and in the outbox."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta

import pytest
from subsvc_billing.api import DEPOSIT, record_transaction
from subsvc_payments.api import (
    CANCELED,
    FAILED,
    REFUSED_MISMATCH,
    SUCCEEDED,
    Payment,
    PaymentNotFound,
    credit_paid,
)

from subsvc.db import utcnow
from subsvc.services import services

PAYMENT_EVENTS = ("payment.succeeded", "payment.failed", "balance.topped_up")


async def _our_events(outbox):
    return [(kind, payload) for kind, payload in await outbox() if kind in PAYMENT_EVENTS]


async def test_a_paid_payment_credits_once_with_a_linked_deposit(
    insert_user, new_payment, credit, reload, outbox, balance_over_http, transactions_over_http
):
    user = await insert_user(balance_kopeks=1_000)
    payment = await new_payment(user.id, 15_000, provider_payment_id="p-1")
    outcome = await credit("p-1", 15_000)
    assert (outcome.status, outcome.credited, outcome.new_balance_kopeks) == (SUCCEEDED, True, 16_000)
    assert await balance_over_http(user) == 16_000
    (deposit,) = await transactions_over_http(user)
    assert (deposit["id"], deposit["type"], deposit["amount_kopeks"]) == (
        outcome.transaction_id,
        "deposit",
        15_000,
    )
    assert (deposit["payment_method"], deposit["external_id"]) == ("fakepay", "p-1")
    stored = await reload(Payment, payment.id)
    assert (stored.status, stored.transaction_id, stored.paid_amount_kopeks) == (
        SUCCEEDED,
        deposit["id"],
        15_000,
    )
    assert stored.paid_at is not None and not stored.flagged_late
    assert stored.data["paid_notification"] == {"id": "p-1", "paid": 15_000, "currency": "RUB"}
    kinds = [kind for kind, _ in await outbox()]
    assert Counter(kinds) == Counter(
        ["transaction.created", "payment.completed", "payment.succeeded", "balance.topped_up"]
    )
    events = dict(await _our_events(outbox))
    assert events["balance.topped_up"] | {"occurred_at": None} == {
        "user_id": user.id,
        "payment_id": payment.id,
        "provider": "fakepay",
        "transaction_id": deposit["id"],
        "amount_kopeks": 15_000,
        "new_balance_kopeks": 16_000,
        "flagged_late": False,
        "occurred_at": None,
    }
    assert events["payment.succeeded"] | {"occurred_at": None} == {
        "payment_id": payment.id,
        "user_id": user.id,
        "provider": "fakepay",
        "method": "card",
        "provider_payment_id": "p-1",
        "status": SUCCEEDED,
        "amount_kopeks": 15_000,
        "paid_amount_kopeks": 15_000,
        "currency": "RUB",
        "transaction_id": deposit["id"],
        "flagged_late": False,
        "failure_reason": None,
        "occurred_at": None,
    }


async def test_five_concurrent_notifications_credit_once(
    insert_user, new_payment, credit, outbox, balance_over_http, transactions_over_http
):
    user = await insert_user(balance_kopeks=0)
    await new_payment(user.id, 9_900, provider_payment_id="p-5")
    outcomes = await asyncio.gather(*(credit("p-5", 9_900) for _ in range(5)))
    assert Counter(o.credited for o in outcomes) == {True: 1, False: 4}
    assert {(o.status, o.transaction_id) for o in outcomes} == {(SUCCEEDED, outcomes[0].transaction_id)}
    assert await balance_over_http(user) == 9_900
    assert len(await transactions_over_http(user)) == 1
    assert Counter(kind for kind, _ in await _our_events(outbox)) == {
        "payment.succeeded": 1,
        "balance.topped_up": 1,
    }


async def test_repeated_notifications_answer_the_first_outcome(
    insert_user, new_payment, credit, balance_over_http
):
    user = await insert_user(balance_kopeks=500)
    await new_payment(user.id, 2_000, provider_payment_id="p-r")
    first = await credit("p-r", 2_000)
    repeats = [await credit("p-r", 2_000) for _ in range(4)]
    assert first.credited and not any(r.credited or r.changed for r in repeats)
    assert {r.transaction_id for r in repeats} == {first.transaction_id}
    assert await balance_over_http(user) == 2_500


@pytest.mark.parametrize(("paid", "currency"), [(1_999, "RUB"), (2_001, "RUB"), (2_000, "USD"), (0, "RUB")])
async def test_a_mismatch_is_refused_recorded_and_not_credited(
    insert_user,
    new_payment,
    credit,
    reload,
    outbox,
    balance_over_http,
    transactions_over_http,
    paid,
    currency,
):
    user = await insert_user(balance_kopeks=300)
    payment = await new_payment(user.id, 2_000, provider_payment_id="p-m")
    outcome = await credit("p-m", paid, currency)
    assert (outcome.status, outcome.credited, outcome.transaction_id) == (REFUSED_MISMATCH, False, None)
    stored = await reload(Payment, payment.id)
    assert (stored.status, stored.paid_amount_kopeks, stored.transaction_id) == (REFUSED_MISMATCH, paid, None)
    assert stored.failure_reason == f"amount_mismatch: paid {paid} {currency}, asked 2000 RUB"
    assert stored.data["paid_notification"]["currency"] == currency
    # refused stays refused: a later notification with the asked amount credits nothing either
    assert not (await credit("p-m", 2_000)).credited
    assert await balance_over_http(user) == 300
    assert await transactions_over_http(user) == []
    ((kind, payload),) = await _our_events(outbox)
    assert (kind, payload["status"], payload["paid_amount_kopeks"]) == (
        "payment.failed",
        REFUSED_MISMATCH,
        paid,
    )


async def test_a_payment_paid_after_expiry_is_credited_once_and_flagged(
    insert_user, new_payment, credit, reload, outbox, balance_over_http, transactions_over_http
):
    user = await insert_user(balance_kopeks=0)
    payment = await new_payment(
        user.id, 4_000, provider_payment_id="p-late", expires_at=utcnow() - timedelta(minutes=1)
    )
    outcomes = await asyncio.gather(*(credit("p-late", 4_000) for _ in range(3)))
    assert Counter(o.credited for o in outcomes) == {True: 1, False: 2}
    assert all(o.flagged_late for o in outcomes)
    stored = await reload(Payment, payment.id)
    assert (stored.status, stored.flagged_late) == (SUCCEEDED, True)
    assert await balance_over_http(user) == 4_000
    assert len(await transactions_over_http(user)) == 1
    events = dict(await _our_events(outbox))
    assert events["balance.topped_up"]["flagged_late"] is True


async def test_a_payment_not_yet_expired_is_not_flagged(insert_user, new_payment, credit):
    user = await insert_user()
    await new_payment(
        user.id, 100, provider_payment_id="p-in-time", expires_at=utcnow() + timedelta(minutes=5)
    )
    assert not (await credit("p-in-time", 100)).flagged_late


async def test_an_unknown_payment_is_not_found_and_changes_nothing(app, db, insert_user, new_payment, outbox):
    user = await insert_user()
    await new_payment(user.id, 100, provider_payment_id="p-known")
    async with db.session() as session:
        with pytest.raises(PaymentNotFound):
            await credit_paid(app, session, "fakepay", "p-unknown", 100, "RUB", {})
        with pytest.raises(PaymentNotFound):  # the provider is part of the key
            await credit_paid(app, session, "otherpay", "p-known", 100, "RUB", {})
    assert await outbox() == []


async def test_a_transaction_already_recorded_for_the_payment_is_linked_not_repeated(
    app, db, insert_user, new_payment, credit, reload, balance_over_http, transactions_over_http
):
    user = await insert_user(balance_kopeks=700)
    payment = await new_payment(user.id, 1_200, provider_payment_id="p-linked")
    async with db.session() as session:  # billing's unique key is the second guard
        existing = await record_transaction(
            session,
            services(app).events,
            user_id=user.id,
            type=DEPOSIT,
            amount_kopeks=1_200,
            new_balance_kopeks=700,
            description="recorded elsewhere",
            payment_method="fakepay",
            external_id="p-linked",
        )
        await session.commit()
    outcome = await credit("p-linked", 1_200)
    assert (outcome.status, outcome.transaction_id, outcome.credited) == (SUCCEEDED, existing, False)
    assert (await reload(Payment, payment.id)).transaction_id == existing
    assert await balance_over_http(user) == 700
    assert len(await transactions_over_http(user)) == 1


@pytest.mark.parametrize("status", [FAILED, CANCELED])
async def test_an_unpaid_end_is_recorded_and_money_arriving_later_still_counts(
    insert_user, new_payment, credit, fail, reload, outbox, balance_over_http, status
):
    user = await insert_user(balance_kopeks=0)
    payment = await new_payment(user.id, 800, provider_payment_id="p-f")
    ended = await fail("p-f", status, "declined")
    assert (ended.status, ended.changed) == (status, True)
    stored = await reload(Payment, payment.id)
    assert (stored.status, stored.failure_reason) == (status, "declined")
    assert not (await fail("p-f", status)).changed  # said twice, recorded once
    assert (await credit("p-f", 800)).credited  # the provider took the money after all
    assert not (await fail("p-f", FAILED)).changed  # a credited payment stays credited
    assert (await reload(Payment, payment.id)).status == SUCCEEDED
    assert await balance_over_http(user) == 800
    assert [kind for kind, _ in await _our_events(outbox)] == [
        "payment.failed",
        "payment.succeeded",
        "balance.topped_up",
    ]


async def test_mark_failed_takes_only_unpaid_ends(app, db, insert_user, new_payment):
    from subsvc_payments.api import mark_failed

    user = await insert_user()
    await new_payment(user.id, 100, provider_payment_id="p-x")
    async with db.session() as session:
        with pytest.raises(ValueError, match="unpaid end"):
            await mark_failed(app, session, "fakepay", "p-x", SUCCEEDED)
