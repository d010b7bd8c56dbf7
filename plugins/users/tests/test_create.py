"""POST /users: defaults, the default promo group, referral codes, rules, the user.created event."""

from __future__ import annotations

import asyncio
import re

import pytest
from sqlmodel import col, select
from subsvc_promo_groups.models import PromoGroup
from subsvc_users import service
from subsvc_users.models import User

from subsvc.events import OutboxEvent

REFERRAL_CODE = re.compile(r"^ref[A-Za-z0-9]{8}$")


async def test_create_answers_the_record_and_stores_the_row(client, rows, utc_time):
    r = await client.post(
        "/users",
        json={
            "messenger_id": 5001,
            "username": "ann",
            "first_name": "Ann",
            "last_name": "Lee",
            "language": "en",
        },
    )
    assert r.status_code == 201
    body = r.json()
    assert body["messenger_id"] == 5001
    assert (body["username"], body["first_name"], body["last_name"], body["language"]) == (
        "ann",
        "Ann",
        "Lee",
        "en",
    )
    assert body["status"] == "active"
    assert (body["balance_kopeks"], body["balance_rubles"]) == (0, 0.0)
    assert body["has_had_paid_subscription"] is False and body["has_made_first_topup"] is False
    assert REFERRAL_CODE.match(body["referral_code"])
    assert body["referred_by_id"] is None and body["last_activity"] is None
    assert body["subscription"] is None and body["subscriptions"] == []
    assert utc_time(body["created_at"]) == utc_time(body["updated_at"])
    (row,) = await rows(User)
    assert (row.id, row.messenger_id, row.referral_code) == (body["id"], 5001, body["referral_code"])
    assert row.promo_group_id == body["promo_group"]["id"]


async def test_minimal_user_has_defaults(make_user):
    body = await make_user()
    assert body["messenger_id"] is None
    assert body["language"] == "ru"
    assert body["username"] is None


async def test_default_group_is_created_once(make_user, rows):
    first = await make_user(messenger_id=1)
    second = await make_user(messenger_id=2)
    (group,) = await rows(PromoGroup)
    assert (group.name, group.is_default) == ("Базовый юзер", True)
    summary = {
        "id": group.id,
        "name": "Базовый юзер",
        "server_discount_percent": 0,
        "traffic_discount_percent": 0,
        "device_discount_percent": 0,
        "apply_discounts_to_addons": True,
    }
    assert first["promo_group"] == summary and second["promo_group"] == summary
    assert {u.promo_group_id for u in await rows(User)} == {group.id}


async def test_first_users_created_at_once_share_one_default_group(client, rows):
    answers = await asyncio.gather(*(client.post("/users", json={"messenger_id": 500 + n}) for n in range(8)))
    assert [r.status_code for r in answers] == [201] * 8
    (group,) = await rows(PromoGroup)
    assert {r.json()["promo_group"]["id"] for r in answers} == {group.id}


async def test_existing_default_group_is_used(client, make_user, rows):
    await client.post("/promo-groups", json={"name": "other"})
    vip = (await client.post("/promo-groups", json={"name": "vip", "is_default": True})).json()
    assert (await make_user())["promo_group"]["id"] == vip["id"]
    assert len(await rows(PromoGroup)) == 2


async def test_given_promo_group_is_used(client, make_user, rows):
    vip = (await client.post("/promo-groups", json={"name": "vip", "server_discount_percent": 15})).json()
    await client.patch(f"/promo-groups/{vip['id']}", json={"is_default": False})
    other = (await client.post("/promo-groups", json={"name": "other", "is_default": True})).json()
    body = await make_user(promo_group_id=vip["id"])
    assert body["promo_group"]["id"] == vip["id"] and body["promo_group"]["server_discount_percent"] == 15
    assert other["id"] != vip["id"]


async def test_unknown_promo_group_is_400(client, rows):
    r = await client.post("/users", json={"messenger_id": 1, "promo_group_id": 999})
    assert r.status_code == 400
    assert r.json() == {"detail": "Promo group not found"}
    assert await rows(User) == [] and await rows(OutboxEvent) == []


async def test_duplicate_messenger_id_is_400(client, make_user, rows):
    await make_user(messenger_id=777)
    r = await client.post("/users", json={"messenger_id": 777, "first_name": "Other"})
    assert r.status_code == 400
    assert r.json() == {"detail": "User with this messenger_id already exists"}
    assert len(await rows(User)) == 1
    assert len(await rows(OutboxEvent)) == 1


async def test_users_without_messenger_id_may_be_many(make_user, rows):
    await make_user()
    await make_user()
    assert len(await rows(User)) == 2


async def test_referrer(client, make_user, rows):
    referrer = await make_user(messenger_id=1)
    body = await make_user(messenger_id=2, referred_by_id=referrer["id"])
    assert body["referred_by_id"] == referrer["id"]
    r = await client.post("/users", json={"messenger_id": 3, "referred_by_id": 999})
    assert r.status_code == 400
    assert r.json() == {"detail": "Referrer not found"}
    assert len(await rows(User)) == 2


async def test_a_start_parameter_naming_a_referral_code_sets_the_referrer(client, make_user, rows):
    referrer = await make_user(messenger_id=1)
    other = await make_user(messenger_id=2)
    code = referrer["referral_code"]
    body = await make_user(messenger_id=3, start_parameter=f" {code} ")
    assert body["referred_by_id"] == referrer["id"]
    # an explicit referrer wins; a parameter that is no code (a campaign's) sets none
    body = await make_user(messenger_id=4, start_parameter=code, referred_by_id=other["id"])
    assert body["referred_by_id"] == other["id"]
    body = await make_user(messenger_id=5, start_parameter="summer_campaign")
    assert body["referred_by_id"] is None
    events = [e.payload for e in await rows(OutboxEvent) if e.payload["messenger_id"] == 5]
    assert [e["start_parameter"] for e in events] == ["summer_campaign"]


async def test_referral_codes_are_unique_with_retry_on_collision(make_user, rows, monkeypatch):
    taken = (await make_user())["referral_code"]
    codes = iter([taken, taken, "refFresh123"])
    monkeypatch.setattr(service, "new_referral_code", lambda: next(codes))
    body = await make_user(messenger_id=42)
    assert body["referral_code"] == "refFresh123"
    assert sorted(u.referral_code for u in await rows(User)) == sorted([taken, "refFresh123"])


def test_new_referral_codes_look_right():
    codes = {service.new_referral_code() for _ in range(1000)}
    assert len(codes) == 1000
    assert all(REFERRAL_CODE.match(code) for code in codes)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"messenger_id": 0}, "messenger_id"),
        ({"messenger_id": 2**63}, "messenger_id"),
        ({"messenger_id": "abc"}, "messenger_id"),
        ({"username": "x" * 256}, "username"),
        ({"first_name": "x" * 256}, "first_name"),
        ({"last_name": "x" * 256}, "last_name"),
        ({"language": "r"}, "language"),
        ({"language": "x" * 11}, "language"),
        ({"referred_by_id": 0}, "referred_by_id"),
        ({"promo_group_id": 2**31}, "promo_group_id"),
        ({"start_parameter": ""}, "start_parameter"),
        ({"start_parameter": "x" * 65}, "start_parameter"),
    ],
)
async def test_create_bounds_are_422(client, rows, payload, field):
    r = await client.post("/users", json=payload)
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", field]
    assert await rows(User) == []


async def test_body_is_required(client):
    r = await client.post("/users")
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body"]


async def test_user_created_event_is_in_the_outbox_of_the_same_transaction(make_user, rows):
    body = await make_user(messenger_id=9001, username="neo", first_name="Thomas", last_name="Anderson")
    (event,) = await rows(OutboxEvent)
    assert event.event_type == "user.created"
    assert event.payload == {
        "user_id": body["id"],
        "messenger_id": 9001,
        "email": None,
        "username": "neo",
        "first_name": "Thomas",
        "last_name": "Anderson",
        "language": "ru",
        "referral_code": body["referral_code"],
        "referred_by_id": None,
        "promo_group_id": body["promo_group"]["id"],
        "created_at": body["created_at"],
        "start_parameter": None,
    }


async def test_user_created_event_is_dispatched_to_subscribers(app, make_user, db):
    received = asyncio.Queue()
    app.state.events.subscribe("user.created", received.put_nowait)
    body = await make_user(messenger_id=31337)
    event = await asyncio.wait_for(received.get(), timeout=5)
    assert event.type == "user.created"
    assert event.payload["user_id"] == body["id"] and event.payload["messenger_id"] == 31337
    for _ in range(50):  # marked dispatched right after the subscribers ran
        async with db.session() as session:
            row = (await session.exec(select(OutboxEvent).where(col(OutboxEvent.id) == event.id))).one()
        if row.dispatched_at is not None:
            break
        await asyncio.sleep(0.02)
    assert row.dispatched_at is not None


def test_user_created_is_declared(app):
    assert app.state.events.catalogue["user.created"].__name__ == "UserCreatedPayload"
