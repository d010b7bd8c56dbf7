"""GET /users: the envelope, order, windows (limit/offset and page/per_page), filters, search."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from subsvc_users.models import User

from subsvc.db import Database
from subsvc.testing import recorded_statements

T0 = datetime(2026, 1, 1, tzinfo=UTC)


async def seed(db: Database, *users: dict) -> list[int]:
    """Insert users directly, ``created_at`` a minute apart in the given order (oldest first)."""
    ids = []
    async with db.session() as session:
        for index, fields in enumerate(users):
            moment = T0 + timedelta(minutes=index)
            row = User(referral_code=f"refseed{index:04d}", created_at=moment, updated_at=moment, **fields)
            session.add(row)
            await session.flush()
            ids.append(row.id)
        await session.commit()
    return ids


def ids_of(response) -> list[int]:
    return [item["id"] for item in response.json()["items"]]


async def test_envelope_and_newest_first(client, db):
    ids = await seed(db, {}, {}, {})
    r = await client.get("/users")
    assert r.status_code == 200
    body = r.json()
    assert (body["total"], body["limit"], body["offset"]) == (3, 50, 0)
    assert ids_of(r) == ids[::-1]


async def test_equal_creation_times_are_ordered_by_id_descending(client, db):
    async with db.session() as session:
        rows = [User(referral_code=f"refsame{i}", created_at=T0, updated_at=T0) for i in range(3)]
        session.add_all(rows)
        await session.commit()
    assert ids_of(await client.get("/users")) == sorted((row.id for row in rows), reverse=True)


async def test_empty_list(client):
    assert (await client.get("/users")).json() == {"items": [], "total": 0, "limit": 50, "offset": 0}


async def test_limit_and_offset(client, db):
    ids = await seed(db, *({} for _ in range(5)))
    newest_first = ids[::-1]
    r = await client.get("/users", params={"limit": 2, "offset": 1})
    assert ids_of(r) == newest_first[1:3]
    assert {k: r.json()[k] for k in ("total", "limit", "offset")} == {"total": 5, "limit": 2, "offset": 1}
    r = await client.get("/users", params={"limit": 200, "offset": 4})
    assert ids_of(r) == newest_first[4:]
    r = await client.get("/users", params={"offset": 5})
    assert r.json()["items"] == [] and r.json()["total"] == 5
    r = await client.get("/users", params={"offset": 10**6})
    assert r.json()["items"] == [] and r.json()["total"] == 5


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"offset": -1}, "offset"),
        ({"offset": 2**63 - 1}, "offset"),
        ({"page": 0}, "page"),
        ({"page": 2**31}, "page"),
        ({"per_page": 0}, "per_page"),
        ({"per_page": 201}, "per_page"),
        ({"status": "gone"}, "status"),
        ({"status": "ACTIVE"}, "status"),
        ({"promo_group_id": "x"}, "promo_group_id"),
        ({"search": "x" * 256}, "search"),
    ],
)
async def test_query_bounds_are_422(client, params, field):
    r = await client.get("/users", params=params)
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["query", field]


async def test_page_and_per_page(client, db):
    newest_first = (await seed(db, *({} for _ in range(5))))[::-1]
    r = await client.get("/users", params={"page": 2, "per_page": 2})
    assert ids_of(r) == newest_first[2:4]
    assert {k: r.json()[k] for k in ("total", "limit", "offset")} == {"total": 5, "limit": 2, "offset": 2}
    r = await client.get("/users", params={"page": 3, "per_page": 2})
    assert ids_of(r) == newest_first[4:]
    # page and per_page win over offset and limit
    r = await client.get("/users", params={"page": 1, "per_page": 3, "limit": 1, "offset": 4})
    assert ids_of(r) == newest_first[:3]
    assert (r.json()["limit"], r.json()["offset"]) == (3, 0)
    # page alone pages by limit; per_page alone keeps offset
    r = await client.get("/users", params={"page": 2, "limit": 2})
    assert ids_of(r) == newest_first[2:4] and r.json()["offset"] == 2
    r = await client.get("/users", params={"per_page": 1, "offset": 1})
    assert ids_of(r) == newest_first[1:2] and (r.json()["limit"], r.json()["offset"]) == (1, 1)


async def test_status_filter(client, db):
    active, blocked, deleted, blocked2 = await seed(
        db, {"status": "active"}, {"status": "blocked"}, {"status": "deleted"}, {"status": "blocked"}
    )
    r = await client.get("/users", params={"status": "blocked"})
    assert ids_of(r) == [blocked2, blocked] and r.json()["total"] == 2
    assert ids_of(await client.get("/users", params={"status": "active"})) == [active]
    assert ids_of(await client.get("/users", params={"status": "deleted"})) == [deleted]


async def test_promo_group_filter(client, db):
    vip = (await client.post("/promo-groups", json={"name": "vip"})).json()["id"]
    other = (await client.post("/promo-groups", json={"name": "other"})).json()["id"]
    in_vip, _, in_vip2 = await seed(
        db, {"promo_group_id": vip}, {"promo_group_id": other}, {"promo_group_id": vip}
    )
    r = await client.get("/users", params={"promo_group_id": vip})
    assert ids_of(r) == [in_vip2, in_vip] and r.json()["total"] == 2
    r = await client.get("/users", params={"promo_group_id": 999})
    assert r.json()["items"] == [] and r.json()["total"] == 0
    r = await client.get("/users", params={"promo_group_id": vip, "status": "blocked"})
    assert r.json()["total"] == 0


async def test_search_by_name_fragments_in_any_case(client, db):
    anna, bob, carl, dora = await seed(
        db,
        {"username": "anna_k", "first_name": "Anna"},
        {"first_name": "Bob", "last_name": "Hannaford"},
        {"first_name": "Carl", "last_name": "Smith"},
        {"first_name": "Dora", "username": "dora"},
    )
    r = await client.get("/users", params={"search": "ANNA"})
    assert ids_of(r) == [bob, anna] and r.json()["total"] == 2
    assert ids_of(await client.get("/users", params={"search": "mit"})) == [carl]
    assert ids_of(await client.get("/users", params={"search": "  dora  "})) == [dora]
    assert ids_of(await client.get("/users", params={"search": "refseed0002"})) == [carl]  # referral code
    assert (await client.get("/users", params={"search": "nobody"})).json()["total"] == 0
    assert (await client.get("/users", params={"search": ""})).json()["total"] == 4


async def test_search_in_cyrillic_any_case(client, db):
    ivan, _ = await seed(db, {"first_name": "Иван", "last_name": "Петров"}, {"first_name": "Пётр"})
    assert ids_of(await client.get("/users", params={"search": "иВАН"})) == [ivan]
    assert ids_of(await client.get("/users", params={"search": "ПЕТРОВ"})) == [ivan]


async def test_search_wildcards_are_literal(client, db):
    percent, under, plain = await seed(db, {"username": "a%b"}, {"username": "a_b"}, {"username": "axb"})
    assert ids_of(await client.get("/users", params={"search": "%"})) == [percent]
    assert ids_of(await client.get("/users", params={"search": "a_b"})) == [under]
    assert ids_of(await client.get("/users", params={"search": "\\"})) == []
    assert plain


async def test_search_by_digits(client, db):
    by_messenger, by_id_target, by_name = await seed(
        db, {"messenger_id": 424242}, {"messenger_id": 1}, {"username": "agent4242"}
    )
    r = await client.get("/users", params={"search": "424242"})
    assert ids_of(r) == [by_messenger]  # exact messenger id (and no name contains it)
    r = await client.get("/users", params={"search": "4242"})
    assert ids_of(r) == [by_name]  # a fragment of a messenger id is not a match; of a name it is
    r = await client.get("/users", params={"search": str(by_id_target)})
    assert by_id_target in ids_of(r)  # internal id (and messenger id 1 when the id is 1)
    assert (await client.get("/users", params={"search": str(10**30)})).json()["total"] == 0
    assert (await client.get("/users", params={"search": "²"})).json()["total"] == 0  # not ASCII digits


async def test_filters_combine(client, db):
    vip = (await client.post("/promo-groups", json={"name": "vip"})).json()["id"]
    match, *_ = await seed(
        db,
        {"first_name": "Zed", "status": "blocked", "promo_group_id": vip},
        {"first_name": "Zed", "status": "active", "promo_group_id": vip},
        {"first_name": "Zed", "status": "blocked"},
        {"first_name": "Amy", "status": "blocked", "promo_group_id": vip},
    )
    r = await client.get("/users", params={"search": "zed", "status": "blocked", "promo_group_id": vip})
    assert ids_of(r) == [match] and r.json()["total"] == 1


async def test_a_page_of_records_is_two_queries(client, app, db, make_user):

    for i in range(5):
        await make_user(messenger_id=i + 1)
    with recorded_statements(app.state.db) as statements:
        r = await client.get("/users", params={"search": "ref"})
    assert r.json()["total"] == 5
    assert len(statements) == 2  # total, then the page joined with its promo groups
    assert "promo_groups" in statements[1]
    assert all(item["promo_group"] is not None for item in r.json()["items"])
