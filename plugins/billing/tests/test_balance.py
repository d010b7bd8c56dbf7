"""`POST /users/{user_id}/balance`: credits, debits, the rules around them, and their events."""

from __future__ import annotations

from datetime import datetime

import pytest
from subsvc_billing.models import Transaction
from subsvc_billing.routes import transactions, users
from subsvc_users.models import User

from subsvc.events import Event, OutboxEvent
from subsvc.testing import recorded_statements

DEFAULT_DESCRIPTION = "Корректировка через веб-API"

# (method, path, success status, summary, tag)
OPERATIONS = [
    ("POST", "/users/{user_id}/balance", 200, "Update Balance", "users"),
    ("POST", "/users/{user_id}/deposit", 200, "Deposit Balance", "users"),
    ("GET", "/transactions", 200, "List Transactions", "transactions"),
]


def test_declared_operations():
    declared = sorted(
        (e.method, e.path, e.status_code, e.summary, e.tag)
        for e in [*users.endpoints, *transactions.endpoints]
    )
    assert declared == sorted(OPERATIONS)
    assert {e.area for e in [*users.endpoints, *transactions.endpoints]} == {"web"}


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/users/1/balance"), ("POST", "/users/1/deposit"), ("GET", "/transactions")],
)
async def test_every_operation_needs_an_api_key(anon_client, insert_user, balance_of, method, path):
    user = await insert_user(balance_kopeks=100)
    r = await anon_client.request(method, path.replace("1", str(user.id)), json={"amount_kopeks": 5})
    assert r.status_code == 401
    assert r.json() == {"detail": "Missing API key"}
    assert await balance_of(user.id) == 100


async def test_credit_records_a_manual_deposit_and_answers_the_user(client, insert_user, rows, outbox):
    user = await insert_user(balance_kopeks=1_000, username="alice")
    r = await client.post(f"/users/{user.id}/balance", json={"amount_kopeks": 2_550})
    assert r.status_code == 200
    body = r.json()
    assert body["id"] == user.id
    assert body["messenger_id"] == user.messenger_id
    assert body["username"] == "alice"
    assert body["balance_kopeks"] == 3_550
    assert body["balance_rubles"] == 35.5
    assert body["has_made_first_topup"] is True
    assert body["promo_group"] is None and body["subscriptions"] == []

    (stored,) = await rows(User)
    assert stored.balance_kopeks == 3_550 and stored.has_made_first_topup is True
    assert stored.updated_at > user.updated_at
    (tx,) = await rows(Transaction)
    assert (tx.user_id, tx.type, tx.amount_kopeks, tx.payment_method) == (user.id, "deposit", 2_550, "manual")
    assert tx.description == DEFAULT_DESCRIPTION
    assert tx.is_completed is True
    assert tx.external_id is None
    assert tx.completed_at == tx.created_at
    assert tx.balance_after_kopeks == 3_550

    events = await outbox()
    assert [event_type for event_type, _ in events] == ["payment.completed", "transaction.created"]
    payload = events[0][1]
    assert events[1][1] == payload
    assert payload == {
        "transaction_id": tx.id,
        "user_id": user.id,
        "type": "deposit",
        "amount_kopeks": 2_550,
        "amount_rubles": 25.5,
        "payment_method": "manual",
        "external_id": None,
        "is_completed": True,
        "description": DEFAULT_DESCRIPTION,
        "created_at": payload["created_at"],
        "new_balance_kopeks": 3_550,
        "notify_user": False,
        "apply_topup_bonuses": False,
    }
    assert datetime.fromisoformat(payload["created_at"]) == tx.created_at


async def test_the_answer_is_the_record_as_read_after_the_change(client, insert_user):
    r = await client.post("/promo-groups", json={"name": "VIP", "server_discount_percent": 15})
    group = r.json()
    user = await insert_user(balance_kopeks=500, promo_group_id=group["id"], username="bob")
    r = await client.post(f"/users/{user.messenger_id}/balance", json={"amount_kopeks": -120})
    assert r.status_code == 200
    answered = r.json()
    assert (answered["id"], answered["balance_kopeks"], answered["username"]) == (user.id, 380, "bob")
    assert answered["promo_group"]["name"] == "VIP"
    assert answered["promo_group"]["server_discount_percent"] == 15
    assert datetime.fromisoformat(answered["updated_at"]) > user.updated_at
    assert answered == (await client.get(f"/users/{user.id}")).json()


async def test_debit_records_a_withdrawal_with_a_positive_amount(client, insert_user, rows, outbox):
    user = await insert_user(balance_kopeks=1_000)
    r = await client.post(
        f"/users/{user.id}/balance", json={"amount_kopeks": -400, "description": "Возврат ошибочного платежа"}
    )
    assert r.status_code == 200
    assert r.json()["balance_kopeks"] == 600
    assert r.json()["has_made_first_topup"] is False  # a debit is no top-up
    (tx,) = await rows(Transaction)
    assert (tx.type, tx.amount_kopeks, tx.payment_method) == ("withdrawal", 400, "manual")
    assert tx.description == "Возврат ошибочного платежа"
    assert tx.balance_after_kopeks == 600
    events = await outbox()
    assert [event_type for event_type, _ in events] == ["transaction.created"]
    assert events[0][1]["type"] == "withdrawal"
    assert events[0][1]["amount_kopeks"] == 400
    assert events[0][1]["new_balance_kopeks"] == 600


async def test_debit_of_the_whole_balance_leaves_zero(client, insert_user, rows):
    user = await insert_user(balance_kopeks=700)
    r = await client.post(f"/users/{user.id}/balance", json={"amount_kopeks": -700})
    assert r.status_code == 200
    assert r.json()["balance_kopeks"] == 0
    assert len(await rows(Transaction, type="withdrawal")) == 1


async def test_debit_larger_than_the_balance_changes_nothing(client, insert_user, rows, outbox):
    user = await insert_user(balance_kopeks=500)
    r = await client.post(f"/users/{user.id}/balance", json={"amount_kopeks": -501})
    assert r.status_code == 400
    assert r.json() == {"detail": "Insufficient balance"}
    (stored,) = await rows(User)
    assert stored.balance_kopeks == 500
    assert stored.updated_at == user.updated_at
    assert await rows(Transaction) == []
    assert await outbox() == []


async def test_debit_from_an_empty_balance_without_transaction_is_refused_too(client, insert_user, rows):
    user = await insert_user()
    r = await client.post(
        f"/users/{user.id}/balance", json={"amount_kopeks": -1, "create_transaction": False}
    )
    assert r.status_code == 400
    assert r.json() == {"detail": "Insufficient balance"}
    assert (await rows(User))[0].balance_kopeks == 0


async def test_zero_is_400_before_the_user_is_looked_up(client, insert_user, rows):
    r = await client.post("/users/987654321/balance", json={"amount_kopeks": 0})
    assert r.status_code == 400
    assert r.json() == {"detail": "Amount must be non-zero"}
    user = await insert_user(balance_kopeks=10)
    r = await client.post(f"/users/{user.id}/balance", json={"amount_kopeks": 0})
    assert r.status_code == 400
    assert r.json() == {"detail": "Amount must be non-zero"}
    assert await rows(Transaction) == []


async def test_unknown_user_is_404(client, rows):
    r = await client.post("/users/987654321/balance", json={"amount_kopeks": 100})
    assert r.status_code == 404
    assert r.json() == {"detail": "User not found"}
    assert await rows(Transaction) == []


async def test_path_id_is_a_messenger_id_first_then_an_internal_id(client, insert_user, balance_of):
    first = await insert_user(messenger_id=None)
    assert first.id is not None
    second = await insert_user(messenger_id=first.id)  # its messenger id equals the first's internal id
    r = await client.post(f"/users/{first.id}/balance", json={"amount_kopeks": 5})
    assert r.status_code == 200
    assert r.json()["id"] == second.id
    r = await client.post(f"/users/{second.id}/balance", json={"amount_kopeks": 7})
    assert r.status_code == 200
    assert r.json()["id"] == second.id  # internal id 2 is nobody's messenger id
    big = await insert_user(messenger_id=8_000_000_000)
    r = await client.post("/users/8000000000/balance", json={"amount_kopeks": 9})
    assert r.json()["id"] == big.id
    assert (await balance_of(first.id), await balance_of(second.id), await balance_of(big.id)) == (0, 12, 9)


async def test_without_transaction_only_the_balance_changes(client, insert_user, rows, outbox):
    user = await insert_user(balance_kopeks=100)
    r = await client.post(
        f"/users/{user.id}/balance", json={"amount_kopeks": 250, "create_transaction": False}
    )
    assert r.status_code == 200
    assert r.json()["balance_kopeks"] == 350
    r = await client.post(
        f"/users/{user.id}/balance", json={"amount_kopeks": -50, "create_transaction": False}
    )
    assert r.status_code == 200
    assert r.json()["balance_kopeks"] == 300
    assert await rows(Transaction) == []
    assert await outbox() == []


async def test_null_description_takes_the_default(client, insert_user, rows):
    user = await insert_user()
    r = await client.post(f"/users/{user.id}/balance", json={"amount_kopeks": 1, "description": None})
    assert r.status_code == 200
    assert (await rows(Transaction))[0].description == DEFAULT_DESCRIPTION


@pytest.mark.parametrize("amount", [100_000_000, -100_000_000])
async def test_amount_bounds_are_inclusive(client, insert_user, balance_of, amount):
    user = await insert_user(balance_kopeks=100_000_000)
    r = await client.post(f"/users/{user.id}/balance", json={"amount_kopeks": amount})
    assert r.status_code == 200
    assert await balance_of(user.id) == 100_000_000 + amount


@pytest.mark.parametrize(
    ("amount", "error", "ctx"),
    [
        (100_000_001, "less_than_equal", {"le": 100_000_000}),
        (-100_000_001, "greater_than_equal", {"ge": -100_000_000}),
    ],
)
async def test_amount_beyond_the_bounds_is_422(client, insert_user, rows, amount, error, ctx):
    user = await insert_user(balance_kopeks=200_000_000)
    r = await client.post(f"/users/{user.id}/balance", json={"amount_kopeks": amount})
    assert r.status_code == 422
    (item,) = r.json()["detail"]
    assert (item["loc"], item["type"], item["ctx"], item["input"]) == (
        ["body", "amount_kopeks"],
        error,
        ctx,
        amount,
    )
    assert await rows(Transaction) == []


@pytest.mark.parametrize(
    ("body", "loc", "error"),
    [
        ({}, ["body", "amount_kopeks"], "missing"),
        ({"amount_kopeks": "ten"}, ["body", "amount_kopeks"], "int_parsing"),
        ({"amount_kopeks": 1.5}, ["body", "amount_kopeks"], "int_from_float"),
        ({"amount_kopeks": 1, "create_transaction": "maybe"}, ["body", "create_transaction"], "bool_parsing"),
    ],
)
async def test_invalid_bodies_are_422(client, insert_user, body, loc, error):
    user = await insert_user()
    r = await client.post(f"/users/{user.id}/balance", json=body)
    assert r.status_code == 422
    (item,) = r.json()["detail"]
    assert (item["loc"], item["type"]) == (loc, error)


async def test_path_id_must_be_an_integer(client):
    r = await client.post("/users/abc/balance", json={"amount_kopeks": 1})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["path", "user_id"]


async def test_events_reach_subscribers_after_the_commit_only(app, client, insert_user, rows, wait_for):
    received: list[Event] = []
    app.state.events.subscribe("*", received.append)
    user = await insert_user(balance_kopeks=100)
    r = await client.post(f"/users/{user.id}/balance", json={"amount_kopeks": -500})
    assert r.status_code == 400
    r = await client.post(f"/users/{user.id}/balance", json={"amount_kopeks": 300})
    assert r.status_code == 200
    await wait_for(lambda: len(received) == 2)
    assert [event.type for event in received] == ["payment.completed", "transaction.created"]
    assert received[0].payload["new_balance_kopeks"] == 400
    outbox_rows = await rows(OutboxEvent)
    assert len(outbox_rows) == 2

    async def all_marked() -> bool:
        return all(row.dispatched_at is not None for row in await rows(OutboxEvent))

    await wait_for(all_marked)  # delivered, then marked: a pass in between would deliver again
    await app.state.events.dispatch_pending()
    assert len(received) == 2  # the failed debit left nothing to dispatch


async def test_transactions_go_with_their_user(client, insert_user, db, rows):
    user, other = await insert_user(), await insert_user()
    for target in (user, other):
        await client.post(f"/users/{target.id}/balance", json={"amount_kopeks": 10})
    async with db.session() as session:
        await session.delete(await session.get(User, user.id))
        await session.commit()
    assert [tx.user_id for tx in await rows(Transaction)] == [other.id]


async def test_on_postgresql_the_change_its_transaction_and_the_answer_are_one_statement(
    client, app, insert_user, rows
):
    user = await insert_user(balance_kopeks=100)
    with recorded_statements(app.state.db) as statements:
        r = await client.post(f"/users/{user.id}/balance", json={"amount_kopeks": -40})
    assert r.status_code == 200 and r.json()["balance_kopeks"] == 60
    writes = [s for s in statements if "UPDATE users" in s or "INSERT INTO transactions" in s]
    if app.state.db.engine.dialect.name == "postgresql":
        assert len(writes) == 1 and "UPDATE users" in writes[0] and "INSERT INTO transactions" in writes[0]
        assert statements == writes  # the record answered comes from the same statement
    else:
        assert len(writes) == 2
        assert len(statements) == 3  # and the record is read after them
    (recorded,) = await rows(Transaction)
    assert (recorded.type, recorded.amount_kopeks, recorded.balance_after_kopeks) == ("withdrawal", 40, 60)
