"""Concurrent balance changes through the app: real concurrent requests, each with its own
connection from the pool. On PostgreSQL the transactions overlap and row locks (and the unique
idempotency key) decide; SQLite runs one writer at a time, so there the requests interleave
between their statements and the database lock decides."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from subsvc_billing.models import Transaction

from subsvc.events import OutboxEvent


@pytest.fixture
def subsvc_settings_overrides():
    # enough connections that many transactions really overlap; the rest wait for the pool
    return {"DATABASE_POOL_SIZE": 20, "DATABASE_MAX_OVERFLOW": 5, "DATABASE_TIMEOUT": 60}


async def test_200_concurrent_credits_all_count(client, insert_user, rows, balance_of):
    user = await insert_user(balance_kopeks=5_000)
    responses = await asyncio.gather(
        *(client.post(f"/users/{user.id}/balance", json={"amount_kopeks": 7}) for _ in range(200))
    )
    assert Counter(r.status_code for r in responses) == {200: 200}
    assert await balance_of(user.id) == 6_400
    # every answer saw its own change: the balances answered are 5007, 5014, ..., 6400
    assert sorted(r.json()["balance_kopeks"] for r in responses) == list(range(5_007, 6_401, 7))
    deposits = await rows(Transaction, user_id=user.id)
    assert len(deposits) == 200
    assert {(tx.type, tx.amount_kopeks) for tx in deposits} == {("deposit", 7)}
    assert sorted(tx.balance_after_kopeks for tx in deposits) == list(range(5_007, 6_401, 7))
    assert Counter(row.event_type for row in await rows(OutboxEvent)) == {
        "payment.completed": 200,
        "transaction.created": 200,
    }


async def test_concurrent_debits_never_take_the_balance_below_zero(client, insert_user, rows, balance_of):
    user = await insert_user(balance_kopeks=1_000)
    responses = await asyncio.gather(
        *(client.post(f"/users/{user.id}/balance", json={"amount_kopeks": -30}) for _ in range(50))
    )
    assert Counter(r.status_code for r in responses) == {200: 33, 400: 17}
    assert all(r.json() == {"detail": "Insufficient balance"} for r in responses if r.status_code == 400)
    assert await balance_of(user.id) == 10
    withdrawals = await rows(Transaction, user_id=user.id)
    assert len(withdrawals) == 33
    assert {(tx.type, tx.amount_kopeks) for tx in withdrawals} == {("withdrawal", 30)}
    assert Counter(row.event_type for row in await rows(OutboxEvent)) == {"transaction.created": 33}


async def test_concurrent_credits_and_debits_add_up(client, insert_user, rows, balance_of):
    user = await insert_user(balance_kopeks=0)
    amounts = [50, -20] * 40
    responses = await asyncio.gather(
        *(client.post(f"/users/{user.id}/balance", json={"amount_kopeks": a}) for a in amounts)
    )
    succeeded = [a for a, r in zip(amounts, responses, strict=True) if r.status_code == 200]
    refused = [a for a, r in zip(amounts, responses, strict=True) if r.status_code == 400]
    assert all(a < 0 for a in refused)  # only debits can be refused (when they came first)
    assert await balance_of(user.id) == sum(succeeded) >= 0
    assert len(await rows(Transaction, user_id=user.id)) == len(succeeded)


async def test_concurrent_retries_of_one_deposit_move_money_once(client, insert_user, rows, balance_of):
    user = await insert_user(balance_kopeks=100)
    body = {"amount_kopeks": 2_500, "idempotency_key": "invoice-2026-001"}
    responses = await asyncio.gather(
        *(client.post(f"/users/{user.id}/deposit", json=body) for _ in range(30))
    )
    assert Counter(r.status_code for r in responses) == {200: 30}
    bodies = [r.json() for r in responses]
    assert Counter(b["duplicate"] for b in bodies) == {False: 1, True: 29}
    assert len({b["transaction_id"] for b in bodies}) == 1
    assert {(b["old_balance_kopeks"], b["new_balance_kopeks"]) for b in bodies} == {(100, 2_600)}
    assert await balance_of(user.id) == 2_600
    (tx,) = await rows(Transaction)
    assert tx.external_id == "invoice-2026-001"
    assert Counter(row.event_type for row in await rows(OutboxEvent)) == {
        "payment.completed": 1,
        "transaction.created": 1,
    }


async def test_concurrent_uses_of_one_key_for_two_users_credit_one(client, insert_user, rows, balance_of):
    first, second = await insert_user(), await insert_user()
    body = {"amount_kopeks": 900, "idempotency_key": "shared-key"}
    requests = [client.post(f"/users/{u.id}/deposit", json=body) for _ in range(10) for u in (first, second)]
    responses = await asyncio.gather(*requests)
    winner = next(r.json()["user_id"] for r in responses if r.status_code == 200)
    for r in responses:
        if r.json().get("user_id") == winner:
            assert r.status_code == 200
        else:
            assert r.status_code == 409
            assert r.json() == {"detail": "Idempotency key was already used for a deposit to another user"}
    assert Counter(r.status_code for r in responses) == {200: 10, 409: 10}
    assert sorted([await balance_of(first.id), await balance_of(second.id)]) == [0, 900]
    assert len(await rows(Transaction)) == 1
