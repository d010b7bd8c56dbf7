"""`POST /users/{user_id}/deposit`: credits recorded as payments, idempotency keys, the limit."""

from __future__ import annotations

import pytest
from subsvc_billing.models import Transaction
from subsvc_users.models import User

from subsvc.app import create_app
from subsvc.settings import SettingsError

LIMIT_TEXT = "exceeds the manual deposit limit of"


async def test_deposit_credits_and_answers_the_outcome(client, insert_user, rows, outbox):
    user = await insert_user(balance_kopeks=1_000)
    r = await client.post(f"/users/{user.id}/deposit", json={"amount_kopeks": 15_050})
    assert r.status_code == 200
    (tx,) = await rows(Transaction)
    assert r.json() == {
        "success": True,
        "duplicate": False,
        "user_id": user.id,
        "messenger_id": user.messenger_id,
        "transaction_id": tx.id,
        "amount_kopeks": 15_050,
        "old_balance_kopeks": 1_000,
        "new_balance_kopeks": 16_050,
        "new_balance_rubles": 160.5,
    }
    assert (tx.type, tx.payment_method, tx.amount_kopeks, tx.is_completed) == (
        "deposit",
        "manual",
        15_050,
        True,
    )
    assert tx.external_id is None
    assert tx.description == "Пополнение через веб-API"
    (stored,) = await rows(User)
    assert stored.balance_kopeks == 16_050 and stored.has_made_first_topup is True
    events = await outbox()
    assert [event_type for event_type, _ in events] == ["payment.completed", "transaction.created"]
    assert events[0][1]["notify_user"] is True and events[0][1]["apply_topup_bonuses"] is True
    assert events[0][1]["new_balance_kopeks"] == 16_050


async def test_deposit_passes_description_and_flags_on(client, insert_user, rows, outbox):
    user = await insert_user()
    body = {
        "amount_kopeks": 500,
        "description": "Оплата по счёту 42",
        "notify_user": False,
        "apply_topup_bonuses": False,
    }
    r = await client.post(f"/users/{user.messenger_id}/deposit", json=body)
    assert r.status_code == 200
    assert (await rows(Transaction))[0].description == "Оплата по счёту 42"
    payload = (await outbox())[0][1]
    assert (payload["notify_user"], payload["apply_topup_bonuses"]) == (False, False)


async def test_idempotency_key_is_stored_and_a_retry_moves_no_money(
    client, insert_user, rows, outbox, balance_of
):
    user = await insert_user(balance_kopeks=200)
    body = {"amount_kopeks": 300, "idempotency_key": "order-1"}
    first = await client.post(f"/users/{user.id}/deposit", json=body)
    assert first.status_code == 200
    assert first.json()["duplicate"] is False
    (tx,) = await rows(Transaction)
    assert (tx.payment_method, tx.external_id) == ("manual", "order-1")

    # later changes do not alter the answer to a retry
    await client.post(f"/users/{user.id}/balance", json={"amount_kopeks": 1_000, "create_transaction": False})
    again = await client.post(f"/users/{user.id}/deposit", json=body)
    assert again.status_code == 200
    assert again.json() == {**first.json(), "duplicate": True}
    assert again.json()["old_balance_kopeks"] == 200 and again.json()["new_balance_kopeks"] == 500
    assert await balance_of(user.id) == 1_500
    assert len(await rows(Transaction)) == 1
    assert len(await outbox()) == 2  # the first deposit's events only


async def test_a_key_is_per_deposit_not_per_user(client, insert_user, rows, balance_of):
    user = await insert_user()
    for key in ("a", "b"):
        r = await client.post(
            f"/users/{user.id}/deposit", json={"amount_kopeks": 100, "idempotency_key": key}
        )
        assert r.json()["duplicate"] is False
    r = await client.post(f"/users/{user.id}/deposit", json={"amount_kopeks": 100})
    r = await client.post(f"/users/{user.id}/deposit", json={"amount_kopeks": 100})
    assert await balance_of(user.id) == 400
    assert len(await rows(Transaction)) == 4


async def test_same_key_with_another_amount_is_409(client, insert_user, rows, balance_of):
    user = await insert_user()
    await client.post(f"/users/{user.id}/deposit", json={"amount_kopeks": 100, "idempotency_key": "k"})
    r = await client.post(f"/users/{user.id}/deposit", json={"amount_kopeks": 101, "idempotency_key": "k"})
    assert r.status_code == 409
    assert r.json() == {"detail": "Idempotency key was already used for a deposit of 100 kopeks"}
    assert await balance_of(user.id) == 100
    assert len(await rows(Transaction)) == 1


async def test_same_key_for_another_user_is_409(client, insert_user, rows, balance_of):
    first, second = await insert_user(), await insert_user()
    await client.post(f"/users/{first.id}/deposit", json={"amount_kopeks": 100, "idempotency_key": "k"})
    r = await client.post(f"/users/{second.id}/deposit", json={"amount_kopeks": 100, "idempotency_key": "k"})
    assert r.status_code == 409
    assert r.json() == {"detail": "Idempotency key was already used for a deposit to another user"}
    assert (await balance_of(first.id), await balance_of(second.id)) == (100, 0)


async def test_key_of_another_kind_of_manual_transaction_is_409(client, insert_user, db):
    user = await insert_user(balance_kopeks=50)
    async with db.session() as session:
        session.add(
            Transaction(
                user_id=user.id, type="refund", amount_kopeks=50, payment_method="manual", external_id="r-1"
            )
        )
        await session.commit()
    r = await client.post(f"/users/{user.id}/deposit", json={"amount_kopeks": 50, "idempotency_key": "r-1"})
    assert r.status_code == 409
    assert r.json() == {"detail": "Idempotency key was already used for another operation"}


async def test_unknown_user_is_404(client, rows):
    r = await client.post("/users/987654321/deposit", json={"amount_kopeks": 100, "idempotency_key": "x"})
    assert r.status_code == 404
    assert r.json() == {"detail": "User not found"}
    assert await rows(Transaction) == []


async def test_default_limit_is_one_million_kopeks(client, insert_user, balance_of):
    user = await insert_user()
    r = await client.post(f"/users/{user.id}/deposit", json={"amount_kopeks": 1_000_001})
    assert r.status_code == 400
    assert r.json() == {
        "detail": "Amount 1000001 kopeks exceeds the manual deposit limit of 1000000 kopeks "
        "(WEB_API_MANUAL_DEPOSIT_MAX_KOPEKS)"
    }
    assert await balance_of(user.id) == 0
    r = await client.post(f"/users/{user.id}/deposit", json={"amount_kopeks": 1_000_000})
    assert r.status_code == 200
    assert await balance_of(user.id) == 1_000_000


@pytest.mark.parametrize(
    ("body", "loc", "error"),
    [
        ({}, ["body", "amount_kopeks"], "missing"),
        ({"amount_kopeks": 0}, ["body", "amount_kopeks"], "greater_than"),
        ({"amount_kopeks": -5}, ["body", "amount_kopeks"], "greater_than"),
        ({"amount_kopeks": 100_000_001}, ["body", "amount_kopeks"], "less_than_equal"),
        ({"amount_kopeks": 1, "idempotency_key": ""}, ["body", "idempotency_key"], "string_too_short"),
        ({"amount_kopeks": 1, "idempotency_key": "k" * 201}, ["body", "idempotency_key"], "string_too_long"),
        ({"amount_kopeks": 1, "description": "d" * 501}, ["body", "description"], "string_too_long"),
        ({"amount_kopeks": 1, "notify_user": "maybe"}, ["body", "notify_user"], "bool_parsing"),
    ],
)
async def test_invalid_bodies_are_422(client, insert_user, rows, body, loc, error):
    user = await insert_user()
    r = await client.post(f"/users/{user.id}/deposit", json=body)
    assert r.status_code == 422
    (item,) = r.json()["detail"]
    assert (item["loc"], item["type"]) == (loc, error)
    assert await rows(Transaction) == []


async def test_longest_key_and_description_are_accepted(client, insert_user, rows):
    user = await insert_user()
    body = {"amount_kopeks": 1, "idempotency_key": "k" * 200, "description": "d" * 500}
    r = await client.post(f"/users/{user.id}/deposit", json=body)
    assert r.status_code == 200
    (tx,) = await rows(Transaction)
    assert (tx.external_id, tx.description) == ("k" * 200, "d" * 500)


# --- the limit setting ---------------------------------------------------------------------------


@pytest.fixture
def deposit_limit() -> str | None:
    return None


@pytest.fixture
def subsvc_settings_overrides(monkeypatch, deposit_limit):
    """Plugin settings come from the environment, read when the app is built."""
    if deposit_limit is not None:
        monkeypatch.setenv("WEB_API_MANUAL_DEPOSIT_MAX_KOPEKS", deposit_limit)
    return {}


@pytest.mark.parametrize("deposit_limit", ["0"])
async def test_zero_limit_means_unlimited(client, insert_user, balance_of, deposit_limit):
    user = await insert_user()
    r = await client.post(f"/users/{user.id}/deposit", json={"amount_kopeks": 100_000_000})
    assert r.status_code == 200
    assert await balance_of(user.id) == 100_000_000


@pytest.mark.parametrize("deposit_limit", ["500"])
async def test_limit_comes_from_the_setting(app, client, insert_user, balance_of, deposit_limit):
    assert app.state.settings_of["billing"].WEB_API_MANUAL_DEPOSIT_MAX_KOPEKS == 500
    user = await insert_user()
    r = await client.post(f"/users/{user.id}/deposit", json={"amount_kopeks": 501})
    assert r.status_code == 400
    assert LIMIT_TEXT in r.json()["detail"] and "500 kopeks" in r.json()["detail"]
    r = await client.post(f"/users/{user.id}/deposit", json={"amount_kopeks": 500})
    assert r.status_code == 200
    assert await balance_of(user.id) == 500


def test_negative_limit_stops_start_up(monkeypatch, subsvc_settings, subsvc_plugins):
    monkeypatch.setenv("WEB_API_MANUAL_DEPOSIT_MAX_KOPEKS", "-1")
    with pytest.raises(SettingsError, match="WEB_API_MANUAL_DEPOSIT_MAX_KOPEKS"):
        create_app(subsvc_settings, plugins=subsvc_plugins)
