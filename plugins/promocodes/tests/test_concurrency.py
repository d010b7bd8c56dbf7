"""Concurrent activations through the app: real concurrent requests, each on its own pooled
connection. On PostgreSQL the transactions overlap and the code's row (the conditional
UPDATE of ``current_uses``) and the unique ``(code, user)`` use decide; SQLite runs one
writer at a time, so there the requests interleave between statements and the database lock
decides. Either way ``max_uses`` is never passed and a user counts once."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from subsvc_billing.models import Transaction
from subsvc_promocodes.models import PromoCode, PromoCodeUse
from subsvc_users.models import User

ACTIVATE = "/cabinet/promocode/activate"


@pytest.fixture
def subsvc_settings_overrides():
    # enough connections that the transactions really overlap
    return {"DATABASE_POOL_SIZE": 25, "DATABASE_MAX_OVERFLOW": 5, "DATABASE_TIMEOUT": 60}


async def _activate_all(cabinet, user_ids: list[int], code: str):
    clients = [cabinet(user_id) for user_id in user_ids]
    try:
        return await asyncio.gather(*(http.post(ACTIVATE, json={"code": code}) for http in clients))
    finally:
        for http in clients:
            await http.aclose()


async def test_twenty_users_and_a_one_use_code_make_exactly_one_winner(make_user, make_code, cabinet, rows):
    users = [await make_user() for _ in range(20)]
    code = await make_code(code="ONLYONE", balance_bonus_kopeks=50_000, max_uses=1)
    responses = await _activate_all(cabinet, [u["id"] for u in users], "ONLYONE")
    assert Counter(r.status_code for r in responses) == {200: 1, 400: 19}
    assert {r.json()["detail"] for r in responses if r.status_code == 400} == {
        "Promo code has been fully used"
    }
    (winner,) = [u for u, r in zip(users, responses, strict=True) if r.status_code == 200]
    (row,) = await rows(PromoCode, id=code["id"])
    assert row.current_uses == 1
    (use,) = await rows(PromoCodeUse)
    assert use.user_id == winner["id"]
    (credit,) = await rows(Transaction)
    assert (credit.user_id, credit.amount_kopeks) == (winner["id"], 50_000)
    balances = {u.id: u.balance_kopeks for u in await rows(User)}
    assert sum(balances.values()) == 50_000
    assert balances[winner["id"]] == 50_000


async def test_twenty_users_and_a_five_use_code_make_five_winners(make_user, make_code, cabinet, rows):
    users = [await make_user() for _ in range(20)]
    code = await make_code(code="FIVE", balance_bonus_kopeks=1_000, max_uses=5)
    responses = await _activate_all(cabinet, [u["id"] for u in users], "FIVE")
    assert Counter(r.status_code for r in responses) == {200: 5, 400: 15}
    (row,) = await rows(PromoCode, id=code["id"])
    assert row.current_uses == 5
    winners = {u["id"] for u, r in zip(users, responses, strict=True) if r.status_code == 200}
    assert {use.user_id for use in await rows(PromoCodeUse)} == winners
    assert sorted(t.user_id for t in await rows(Transaction)) == sorted(winners)


async def test_one_user_racing_themselves_counts_once(make_user, make_code, cabinet, rows):
    user = await make_user()
    code = await make_code(code="MINE", balance_bonus_kopeks=300, max_uses=0)
    responses = await _activate_all(cabinet, [user["id"]] * 10, "MINE")
    assert Counter(r.status_code for r in responses) == {200: 1, 400: 9}
    assert {r.json()["detail"] for r in responses if r.status_code == 400} == {
        "You have already used this promo code"
    }
    (row,) = await rows(PromoCode, id=code["id"])
    assert row.current_uses == 1
    (stored,) = await rows(User, id=user["id"])
    assert stored.balance_kopeks == 300
    assert len(await rows(Transaction)) == 1


async def test_lowering_max_uses_while_users_activate_never_leaves_more_uses(
    make_user, make_code, cabinet, admin, rows
):
    users = [await make_user() for _ in range(10)]
    code = await make_code(code="SHRINK", balance_bonus_kopeks=100, max_uses=10)
    clients = [cabinet(u["id"]) for u in users]
    try:
        results = await asyncio.gather(
            admin.patch(f"/cabinet/admin/promocodes/{code['id']}", json={"max_uses": 3}),
            *(http.post(ACTIVATE, json={"code": "SHRINK"}) for http in clients),
        )
    finally:
        for http in clients:
            await http.aclose()
    patch, *activations = results
    (row,) = await rows(PromoCode, id=code["id"])
    used = sum(r.status_code == 200 for r in activations)
    assert row.current_uses == used == len(await rows(PromoCodeUse))
    if patch.status_code == 200:
        assert row.max_uses == 3 and used <= 3
    else:  # the activations got there first
        assert patch.json() == {"detail": "max_uses cannot be less than current uses"}
        assert row.max_uses == 10 and used > 3
