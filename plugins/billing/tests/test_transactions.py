"""`GET /transactions`: the envelope, ordering, paging and every filter of the reference."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from subsvc_billing.models import Transaction
from subsvc_billing.routes import transactions

REFERENCE = Path(__file__).resolve().parents[4] / "shared" / "reference" / "openapi.json"
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
async def ledger(db, insert_user):
    """Two users and six transactions an hour apart (oldest first)."""
    alice, bob = await insert_user(), await insert_user()
    specs = [
        (alice, "deposit", 10_000, "manual", True),
        (alice, "subscription_payment", -5_000, "balance", True),
        (bob, "deposit", 25_055, "yookassa", True),
        (bob, "deposit", 7_000, "yookassa", False),
        (alice, "withdrawal", 1_000, "manual", True),
        (bob, "referral_reward", 300, None, True),
    ]
    rows = []
    async with db.session() as session:
        for hour, (user, kind, amount, method, done) in enumerate(specs):
            created = T0 + timedelta(hours=hour)
            tx = Transaction(
                user_id=user.id,
                type=kind,
                amount_kopeks=amount,
                payment_method=method,
                external_id=f"ext-{hour}" if method == "yookassa" else None,
                is_completed=done,
                description=f"tx {hour}",
                created_at=created,
                completed_at=created if done else None,
            )
            session.add(tx)
            rows.append(tx)
        await session.commit()
    return alice, bob, [tx.id for tx in rows]


def _ids(response) -> list[int]:
    return [item["id"] for item in response.json()["items"]]


@pytest.mark.skipif(not REFERENCE.exists(), reason="the reference contract is not beside the project")
def test_query_parameters_are_the_reference_ones():
    (endpoint,) = transactions.endpoints
    reference = json.loads(REFERENCE.read_text())["paths"]["/transactions"]["get"]["parameters"]
    ours = {i.wire_name: (i.location, i.field.get_default()) for i in endpoint.inputs}
    theirs = {p["name"]: (p["in"], p["schema"].get("default")) for p in reference}
    assert ours == theirs


async def test_empty_list(client):
    r = await client.get("/transactions")
    assert r.status_code == 200
    assert r.json() == {"items": [], "total": 0, "limit": 50, "offset": 0}


async def test_newest_first_with_every_field(client, ledger):
    _, bob, ids = ledger
    r = await client.get("/transactions")
    assert r.status_code == 200
    body = r.json()
    assert (body["total"], body["limit"], body["offset"]) == (6, 50, 0)
    assert _ids(r) == ids[::-1]
    third = body["items"][3]  # bob's first deposit
    assert third == {
        "id": ids[2],
        "user_id": bob.id,
        "type": "deposit",
        "amount_kopeks": 25_055,
        "amount_rubles": 250.55,
        "description": "tx 2",
        "payment_method": "yookassa",
        "external_id": "ext-2",
        "is_completed": True,
        "created_at": "2026-03-01T14:00:00Z",
        "completed_at": "2026-03-01T14:00:00Z",
    }
    pending = body["items"][2]
    assert pending["is_completed"] is False and pending["completed_at"] is None
    assert body["items"][4]["amount_kopeks"] == -5_000 and body["items"][4]["amount_rubles"] == -50.0


async def test_paging(client, ledger):
    _, _, ids = ledger
    r = await client.get("/transactions", params={"limit": 2, "offset": 1})
    assert r.json()["total"] == 6 and (r.json()["limit"], r.json()["offset"]) == (2, 1)
    assert _ids(r) == [ids[4], ids[3]]
    r = await client.get("/transactions", params={"limit": 4, "offset": 4})
    assert r.json()["total"] == 6 and _ids(r) == [ids[1], ids[0]]
    r = await client.get("/transactions", params={"limit": 3, "offset": 3})
    assert r.json()["total"] == 6 and _ids(r) == [ids[2], ids[1], ids[0]]
    r = await client.get("/transactions", params={"offset": 10})
    assert r.json() == {"items": [], "total": 6, "limit": 50, "offset": 10}


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"type": "deposit"}, [3, 2, 0]),
        ({"type": "refund"}, []),
        ({"payment_method": "yookassa"}, [3, 2]),
        ({"payment_method": "manual", "type": "withdrawal"}, [4]),
        ({"is_completed": "false"}, [3]),
        ({"is_completed": "true", "type": "deposit"}, [2, 0]),
        ({"date_from": "2026-03-01T14:00:00Z"}, [5, 4, 3, 2]),
        ({"date_to": "2026-03-01T14:00:00Z"}, [2, 1, 0]),
        ({"date_from": "2026-03-01T13:00:00Z", "date_to": "2026-03-01T15:30:00Z"}, [3, 2, 1]),
        ({"date_from": "2026-03-01T16:00:00+03:00", "date_to": "2026-03-01T17:00:00+03:00"}, [2, 1]),
        ({"date_from": "2026-03-01T14:00:00", "date_to": "2026-03-01T14:00:00"}, [2]),  # naive = UTC
        ({"date_from": "2026-03-02T00:00:00Z", "date_to": "2026-03-01T00:00:00Z"}, []),
    ],
)
async def test_filters(client, ledger, params, expected):
    _, _, ids = ledger
    r = await client.get("/transactions", params=params)
    assert r.status_code == 200
    assert _ids(r) == [ids[i] for i in expected]
    assert r.json()["total"] == len(expected)


async def test_filter_by_internal_user_id(client, ledger):
    alice, bob, ids = ledger
    r = await client.get("/transactions", params={"user_id": alice.id})
    assert _ids(r) == [ids[4], ids[1], ids[0]]
    r = await client.get("/transactions", params={"user_id": bob.id, "type": "deposit", "limit": 1})
    assert _ids(r) == [ids[3]] and r.json()["total"] == 2
    r = await client.get("/transactions", params={"user_id": 999_999})
    assert r.json()["total"] == 0


async def test_transactions_made_through_the_api_are_listed(client, insert_user):
    user = await insert_user(balance_kopeks=1_000)
    await client.post(f"/users/{user.id}/balance", json={"amount_kopeks": -100})
    await client.post(f"/users/{user.id}/deposit", json={"amount_kopeks": 200, "idempotency_key": "pay-7"})
    r = await client.get("/transactions", params={"user_id": user.id})
    items = r.json()["items"]
    assert [(i["type"], i["amount_kopeks"], i["payment_method"], i["external_id"]) for i in items] == [
        ("deposit", 200, "manual", "pay-7"),
        ("withdrawal", 100, "manual", None),
    ]


@pytest.mark.parametrize(
    ("params", "loc", "error"),
    [
        ({"limit": 0}, ["query", "limit"], "greater_than_equal"),
        ({"limit": 201}, ["query", "limit"], "less_than_equal"),
        ({"offset": -1}, ["query", "offset"], "greater_than_equal"),
        ({"user_id": "x"}, ["query", "user_id"], "int_parsing"),
        ({"is_completed": "perhaps"}, ["query", "is_completed"], "bool_parsing"),
        ({"date_from": "yesterday"}, ["query", "date_from"], "datetime_from_date_parsing"),
        ({"date_to": "2026-13-01T00:00:00Z"}, ["query", "date_to"], "datetime_from_date_parsing"),
    ],
)
async def test_invalid_queries_are_422(client, params, loc, error):
    r = await client.get("/transactions", params=params)
    assert r.status_code == 422
    (item,) = r.json()["detail"]
    assert (item["loc"], item["type"]) == (loc, error)


async def test_limit_200_is_accepted(client, ledger):
    r = await client.get("/transactions", params={"limit": 200})
    assert r.status_code == 200 and r.json()["limit"] == 200 and r.json()["total"] == 6
