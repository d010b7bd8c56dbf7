"""`POST /cabinet/admin/users/{id}/balance`: through billing's atomic balance change."""

from __future__ import annotations

import asyncio

import pytest
from subsvc_billing.models import Transaction
from subsvc_users.models import User

BASE = "/cabinet/admin/users"


async def test_credit_records_a_manual_deposit_and_publishes(admin, make_user, reload, rows, outbox):
    user = await make_user(balance_kopeks=1000)
    response = await admin.post(f"{BASE}/{user.id}/balance", json={"amount_kopeks": 2550})
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "old_balance_kopeks": 1000,
        "new_balance_kopeks": 3550,
        "message": "Balance updated: 10.00₽ -> 35.50₽",
    }
    assert (await reload(User, user.id)).balance_kopeks == 3550
    (row,) = await rows(Transaction, user_id=user.id)
    assert (row.type, row.amount_kopeks, row.payment_method, row.description) == (
        "deposit",
        2550,
        "manual",
        "Admin balance adjustment",
    )
    types = [event for event, _ in await outbox()]
    assert types[-2:] == ["payment.completed", "transaction.created"]


async def test_debit_records_a_withdrawal(admin, make_user, rows):
    user = await make_user(balance_kopeks=1000)
    body = {"amount_kopeks": -400, "description": "correction"}
    response = await admin.post(f"{BASE}/{user.id}/balance", json=body)
    assert response.json()["new_balance_kopeks"] == 600
    (row,) = await rows(Transaction, user_id=user.id)
    assert (row.type, row.amount_kopeks, row.description) == ("withdrawal", 400, "correction")


async def test_a_debit_above_the_balance_is_400_and_changes_nothing(admin, make_user, reload, rows):
    user = await make_user(balance_kopeks=100)
    response = await admin.post(f"{BASE}/{user.id}/balance", json={"amount_kopeks": -101})
    assert response.status_code == 400
    assert response.json() == {"detail": "Insufficient balance"}
    assert (await reload(User, user.id)).balance_kopeks == 100
    assert await rows(Transaction, user_id=user.id) == []


async def test_without_transaction_only_the_balance_moves(admin, make_user, rows, outbox):
    user = await make_user()
    before = len(await outbox())
    body = {"amount_kopeks": 500, "create_transaction": False}
    assert (await admin.post(f"{BASE}/{user.id}/balance", json=body)).json()["new_balance_kopeks"] == 500
    assert await rows(Transaction, user_id=user.id) == []
    assert len(await outbox()) == before


async def test_zero_is_400(admin, make_user):
    user = await make_user()
    response = await admin.post(f"{BASE}/{user.id}/balance", json={"amount_kopeks": 0})
    assert (response.status_code, response.json()) == (400, {"detail": "Amount must be non-zero"})


async def test_concurrent_debits_never_take_the_balance_below_zero(admin, make_user, reload):
    user = await make_user(balance_kopeks=1000)
    responses = await asyncio.gather(
        *(admin.post(f"{BASE}/{user.id}/balance", json={"amount_kopeks": -300}) for _ in range(5))
    )
    codes = sorted(response.status_code for response in responses)
    assert codes == [200, 200, 200, 400, 400]
    assert (await reload(User, user.id)).balance_kopeks == 100


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({}, ["body", "amount_kopeks"]),
        ({"amount_kopeks": 2_000_000_001}, ["body", "amount_kopeks"]),
        ({"amount_kopeks": -2_000_000_001}, ["body", "amount_kopeks"]),
        ({"amount_kopeks": 5, "description": "x" * 501}, ["body", "description"]),
        ({"amount_kopeks": "lots"}, ["body", "amount_kopeks"]),
    ],
)
async def test_bounds_are_422(admin, make_user, body, loc):
    user = await make_user()
    response = await admin.post(f"{BASE}/{user.id}/balance", json=body)
    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["detail"]] == [loc]
