"""GET /users/{user_id} (messenger id first, then internal id), GET /users/by-messenger-id/…,
and the records other plugins extend through ``user_record_extras``."""

from __future__ import annotations

import types
from datetime import UTC, datetime

import pytest
from subsvc_users.models import User

from subsvc.db import Database
from subsvc.hookspecs import hookimpl

NOT_FOUND = {"detail": "User not found"}


async def test_get_by_internal_id_and_by_messenger_id(client, make_user):
    user = await make_user(messenger_id=123456, first_name="Ann")
    by_id = await client.get(f"/users/{user['id']}")
    by_messenger = await client.get("/users/123456")
    assert by_id.status_code == by_messenger.status_code == 200
    assert by_id.json() == by_messenger.json() == user


async def test_messenger_id_wins_over_internal_id(client, make_user):
    first = await make_user(messenger_id=10**9, first_name="First")
    second = await make_user(messenger_id=first["id"], first_name="Second")  # messenger id = first's id
    r = await client.get(f"/users/{first['id']}")
    assert r.json()["id"] == second["id"]
    r = await client.patch(f"/users/{first['id']}", json={"last_name": "Patched"})
    assert r.json()["id"] == second["id"]
    assert (await client.get(f"/users/{second['id']}")).json()["id"] == second["id"]
    r = await client.get(f"/users/{10**9}")
    assert r.json()["id"] == first["id"]


async def test_user_without_messenger_id_is_found_by_internal_id(client, make_user, db: Database):
    user = await make_user()
    async with db.session() as session:  # another user whose messenger id is null must not interfere
        session.add(User(first_name="x", referral_code="refX"))
        await session.commit()
    assert (await client.get(f"/users/{user['id']}")).json() == user


@pytest.mark.parametrize("user_id", ["999", "0", "-1", str(2**40), str(2**63 - 1)])
async def test_unknown_user_is_404(client, make_user, user_id):
    await make_user(messenger_id=5)
    r = await client.get(f"/users/{user_id}")
    assert r.status_code == 404
    assert r.json() == NOT_FOUND
    r = await client.patch(f"/users/{user_id}", json={"first_name": "x"})
    assert r.status_code == 404
    assert r.json() == NOT_FOUND


@pytest.mark.parametrize(
    ("user_id", "error"),
    [
        (str(2**63), "less_than_equal"),
        (str(10**30), "less_than_equal"),
        (str(-(2**63) - 1), "greater_than_equal"),
    ],
)
async def test_a_path_id_beyond_bigint_is_422(client, make_user, user_id, error):
    """The path id is a messenger id first (BIGINT): beyond BIGINT no user can have it."""
    await make_user(messenger_id=5)
    for r in (
        await client.get(f"/users/{user_id}"),
        await client.patch(f"/users/{user_id}", json={"first_name": "x"}),
    ):
        assert r.status_code == 422
        assert [(e["loc"], e["type"]) for e in r.json()["detail"]] == [(["path", "user_id"], error)]


async def test_path_id_must_be_an_integer(client):
    r = await client.get("/users/abc")
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["path", "user_id"]


async def test_by_messenger_id_looks_at_messenger_ids_only(client, make_user):
    user = await make_user(messenger_id=987654321)
    r = await client.get("/users/by-messenger-id/987654321")
    assert r.status_code == 200
    assert r.json() == user
    r = await client.get(f"/users/by-messenger-id/{user['id']}")
    assert r.status_code == 404
    assert r.json() == NOT_FOUND
    assert (await client.get(f"/users/by-messenger-id/{2**63 - 1}")).status_code == 404
    r = await client.get(f"/users/by-messenger-id/{10**30}")  # beyond BIGINT
    assert r.status_code == 422
    assert [(e["loc"], e["type"]) for e in r.json()["detail"]] == [
        (["path", "messenger_id"], "less_than_equal")
    ]
    assert (await client.get("/users/by-messenger-id/x")).status_code == 422


async def test_balance_rubles_is_computed(client, make_user, db: Database):
    user = await make_user(messenger_id=1)
    async with db.session() as session:
        row = await session.get(User, user["id"])
        row.balance_kopeks = 12345
        row.last_activity = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
        await session.commit()
    body = (await client.get("/users/1")).json()
    assert (body["balance_kopeks"], body["balance_rubles"]) == (12345, 123.45)
    assert body["last_activity"] == "2026-01-02T03:04:05Z"


# --- the user_record_extras extension point ------------------------------------------------------

seen_pages: list[list[int]] = []


@hookimpl
def user_record_extras(session, user_ids):
    async def extras():
        seen_pages.append(list(user_ids))
        start = datetime(2026, 1, 1, tzinfo=UTC)
        summary = {
            "id": 7,
            "status": "active",
            "actual_status": "active",
            "is_trial": False,
            "start_date": start,
            "end_date": start.replace(year=2027),
            "traffic_limit_gb": 100,
            "traffic_used_gb": 1.5,
            "device_limit": 3,
            "autopay_enabled": True,
        }
        return {user_ids[0]: {"subscription": summary, "subscriptions": [summary]}}

    return extras()


extras_plugin = types.ModuleType("users_extras_probe")
extras_plugin.PLUGIN_NAME = "users_extras_probe"
extras_plugin.REQUIRES = ("users",)
extras_plugin.user_record_extras = user_record_extras


@pytest.fixture
def subsvc_plugins() -> list:
    return ["users", extras_plugin]


async def test_extras_of_other_plugins_are_merged_once_per_page(client, make_user):
    first = await make_user(messenger_id=1)
    second = await make_user(messenger_id=2)
    assert first["subscription"]["id"] == 7  # the only user of its page
    seen_pages.clear()
    r = await client.get("/users")
    assert seen_pages == [[second["id"], first["id"]]]
    items = r.json()["items"]
    assert items[0]["subscription"]["traffic_used_gb"] == 1.5
    assert items[0]["subscriptions"][0]["connected_squads"] == []
    assert items[1]["subscription"] is None and items[1]["subscriptions"] == []
