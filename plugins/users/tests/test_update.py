"""PATCH /users/{user_id}: given fields only, the reference's 400 texts, updated_at."""

from __future__ import annotations

import pytest
from subsvc_users.models import User


async def test_patch_changes_given_fields_and_moves_updated_at(client, make_user, rows, utc_time):
    user = await make_user(messenger_id=100, first_name="Ann", username="ann")
    payload = {
        "username": "anna",
        "last_name": "Lee",
        "language": "en",
        "status": "blocked",
        "has_had_paid_subscription": True,
        "has_made_first_topup": True,
        "first_name": None,
    }
    r = await client.patch("/users/100", json=payload)
    assert r.status_code == 200
    body = r.json()
    assert (body["username"], body["first_name"], body["last_name"]) == ("anna", "Ann", "Lee")
    assert (body["language"], body["status"]) == ("en", "blocked")
    assert body["has_had_paid_subscription"] is True and body["has_made_first_topup"] is True
    assert body["created_at"] == user["created_at"]
    assert utc_time(body["updated_at"]) > utc_time(user["updated_at"])
    (row,) = await rows(User)
    assert (row.username, row.first_name, row.status, row.language) == ("anna", "Ann", "blocked", "en")
    assert row.updated_at == utc_time(body["updated_at"])


async def test_empty_or_null_patch_returns_the_user_unchanged(client, make_user):
    user = await make_user(messenger_id=100)
    for payload in ({}, {"username": None, "status": None}):
        r = await client.patch("/users/100", json=payload)
        assert r.status_code == 200
        assert r.json() == user


async def test_invalid_status_is_400(client, make_user, rows):
    await make_user(messenger_id=100)
    r = await client.patch("/users/100", json={"status": "banned", "first_name": "X"})
    assert r.status_code == 400
    assert r.json() == {"detail": "Invalid status"}
    (row,) = await rows(User)
    assert (row.status, row.first_name) == ("active", None)


@pytest.mark.parametrize("status", ["active", "blocked", "deleted"])
async def test_every_status_is_accepted(client, make_user, status):
    await make_user(messenger_id=100)
    assert (await client.patch("/users/100", json={"status": status})).json()["status"] == status


async def test_promo_group_change(client, make_user, rows):
    user = await make_user(messenger_id=100)
    vip = (await client.post("/promo-groups", json={"name": "vip", "device_discount_percent": 7})).json()
    r = await client.patch(f"/users/{user['id']}", json={"promo_group_id": vip["id"]})
    assert r.status_code == 200
    assert r.json()["promo_group"]["id"] == vip["id"]
    assert r.json()["promo_group"]["device_discount_percent"] == 7
    r = await client.patch(f"/users/{user['id']}", json={"promo_group_id": 999})
    assert r.status_code == 400
    assert r.json() == {"detail": "Promo group not found"}
    assert (await rows(User))[0].promo_group_id == vip["id"]


async def test_referral_code_rules(client, make_user, rows):
    first = await make_user(messenger_id=1)
    second = await make_user(messenger_id=2)
    r = await client.patch("/users/2", json={"referral_code": first["referral_code"]})
    assert r.status_code == 400
    assert r.json() == {"detail": "Referral code already in use"}
    r = await client.patch("/users/2", json={"referral_code": second["referral_code"]})  # its own code
    assert r.status_code == 200
    r = await client.patch("/users/2", json={"referral_code": "  mycode  "})
    assert r.status_code == 200 and r.json()["referral_code"] == "mycode"
    assert [u.referral_code for u in await rows(User)] == [first["referral_code"], "mycode"]


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"language": "r"}, "language"),
        ({"username": "x" * 256}, "username"),
        ({"referral_code": ""}, "referral_code"),
        ({"referral_code": "x" * 33}, "referral_code"),
        ({"promo_group_id": 0}, "promo_group_id"),
        ({"has_made_first_topup": "perhaps"}, "has_made_first_topup"),
    ],
)
async def test_patch_bounds_are_422(client, make_user, payload, field):
    await make_user(messenger_id=100)
    r = await client.patch("/users/100", json=payload)
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", field]


async def test_status_change_shows_in_filtered_totals_at_once(client, make_user):
    await make_user(messenger_id=100)
    assert (await client.get("/users", params={"status": "blocked"})).json()["total"] == 0
    await client.patch("/users/100", json={"status": "blocked"})
    assert (await client.get("/users", params={"status": "blocked"})).json()["total"] == 1
