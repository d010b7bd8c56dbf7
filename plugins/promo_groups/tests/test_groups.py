"""Creating, reading, listing and changing promo groups: rules, bounds, texts, database state."""

from __future__ import annotations

from datetime import datetime

import pytest
from subsvc_promo_groups.models import PromoGroup

NOT_FOUND = {"detail": "Promo group not found"}
DUPLICATE = {"detail": "Promo group with this name already exists"}


async def test_create_answers_the_group_and_stores_it(client, rows):
    r = await client.post(
        "/promo-groups",
        json={
            "name": "  VIP  ",
            "server_discount_percent": 10,
            "traffic_discount_percent": 20,
            "device_discount_percent": 30,
            "period_discounts": {"1": 5, "6": 15},
            "auto_assign_total_spent_kopeks": 500_000,
            "apply_discounts_to_addons": False,
        },
    )
    assert r.status_code == 201
    body = r.json()
    assert body["name"] == "VIP"
    assert body["server_discount_percent"] == 10
    assert body["traffic_discount_percent"] == 20
    assert body["device_discount_percent"] == 30
    assert body["period_discounts"] == {"1": 5, "6": 15}
    assert body["auto_assign_total_spent_kopeks"] == 500_000
    assert body["apply_discounts_to_addons"] is False
    assert body["members_count"] == 0
    assert body["is_default"] is True  # the first group is the default one
    assert body["created_at"] == body["updated_at"]
    assert datetime.fromisoformat(body["created_at"]).utcoffset().total_seconds() == 0
    (row,) = await rows(PromoGroup)
    assert (row.id, row.name, row.period_discounts) == (body["id"], "VIP", {"1": 5, "6": 15})


async def test_defaults_of_a_minimal_group(client, make_group):
    await make_group(name="first")
    body = await make_group(name="second")
    assert body == {
        **body,
        "priority": 0,
        "server_discount_percent": 0,
        "traffic_discount_percent": 0,
        "device_discount_percent": 0,
        "period_discounts": {},
        "auto_assign_total_spent_kopeks": None,
        "apply_discounts_to_addons": True,
        "is_default": False,
        "members_count": 0,
    }


async def test_zero_threshold_means_none(make_group):
    group = await make_group(name="g", auto_assign_total_spent_kopeks=0)
    assert group["auto_assign_total_spent_kopeks"] is None


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"name": ""},
        {"name": "   "},
        {"name": "x" * 256},
        {"name": "g", "server_discount_percent": 101},
        {"name": "g", "traffic_discount_percent": -1},
        {"name": "g", "device_discount_percent": 1000},
        {"name": "g", "period_discounts": {"30": 101}},
        {"name": "g", "period_discounts": {"0": 10}},
        {"name": "g", "period_discounts": {"month": 10}},
        {"name": "g", "auto_assign_total_spent_kopeks": -1},
        {"name": "g", "priority": -1},
        {"name": "g", "is_default": "maybe"},
    ],
)
async def test_create_bounds_are_422(client, rows, payload):
    r = await client.post("/promo-groups", json=payload)
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"][0] == "body"
    assert await rows(PromoGroup) == []


async def test_names_are_unique(client, make_group, rows):
    await make_group(name="VIP")
    r = await client.post("/promo-groups", json={"name": " VIP "})
    assert r.status_code == 400
    assert r.json() == DUPLICATE
    assert [g.name for g in await rows(PromoGroup)] == ["VIP"]


async def test_is_default_is_exclusive_on_create(client, make_group, rows):
    first = await make_group(name="first")
    second = await make_group(name="second", is_default=True)
    assert second["is_default"] is True
    defaults = await rows(PromoGroup, is_default=True)
    assert [g.id for g in defaults] == [second["id"]]
    r = await client.get(f"/promo-groups/{first['id']}")
    assert r.json()["is_default"] is False
    assert r.json()["updated_at"] > first["updated_at"]


async def test_get_one_404_and_422_beyond_the_column(client, make_group):
    group = await make_group(name="VIP", server_discount_percent=5)
    r = await client.get(f"/promo-groups/{group['id']}")
    assert r.status_code == 200
    assert r.json() == group
    for missing in (group["id"] + 1, 0, -5, 2**31 - 1):
        r = await client.get(f"/promo-groups/{missing}")
        assert r.status_code == 404
        assert r.json() == NOT_FOUND
    beyond = await client.get(f"/promo-groups/{10**12}")  # beyond the INTEGER column
    assert beyond.status_code == 422
    assert [(e["loc"], e["type"]) for e in beyond.json()["detail"]] == [
        (["path", "group_id"], "less_than_equal")
    ]
    assert (await client.get("/promo-groups/abc")).status_code == 422


async def test_list_envelope_order_and_window(client, make_group):
    await make_group(name="b")
    await make_group(name="a")
    await make_group(name="top", priority=10)
    await make_group(name="c", priority=5)
    r = await client.get("/promo-groups")
    assert r.status_code == 200
    body = r.json()
    assert (body["total"], body["limit"], body["offset"]) == (4, 50, 0)
    assert [g["name"] for g in body["items"]] == ["top", "c", "a", "b"]  # priority desc, then name
    r = await client.get("/promo-groups", params={"limit": 2, "offset": 1})
    body = r.json()
    assert (body["total"], body["limit"], body["offset"]) == (4, 2, 1)
    assert [g["name"] for g in body["items"]] == ["c", "a"]
    r = await client.get("/promo-groups", params={"offset": 10})
    assert r.json()["items"] == [] and r.json()["total"] == 4


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 201}, {"offset": -1}, {"limit": "x"}])
async def test_list_bounds_are_422(client, params):
    r = await client.get("/promo-groups", params=params)
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["query", next(iter(params))]


async def test_update_changes_given_fields_only(client, make_group, rows):
    group = await make_group(name="VIP", server_discount_percent=10, period_discounts={"1": 5})
    r = await client.patch(
        f"/promo-groups/{group['id']}",
        json={"traffic_discount_percent": 25, "period_discounts": {"3": 7}, "name": None, "priority": 3},
    )
    assert r.status_code == 200
    body = r.json()
    assert body["name"] == "VIP"
    assert body["server_discount_percent"] == 10
    assert body["traffic_discount_percent"] == 25
    assert body["period_discounts"] == {"3": 7}
    assert body["priority"] == 3
    assert body["updated_at"] > group["updated_at"]
    assert body["created_at"] == group["created_at"]
    (row,) = await rows(PromoGroup)
    assert (row.traffic_discount_percent, row.period_discounts, row.priority) == (25, {"3": 7}, 3)


async def test_update_without_changes_keeps_updated_at(client, make_group):
    group = await make_group(name="VIP", server_discount_percent=10)
    for payload in ({}, {"name": None}, {"name": "VIP", "server_discount_percent": 10}):
        r = await client.patch(f"/promo-groups/{group['id']}", json=payload)
        assert r.status_code == 200
        assert r.json() == group


async def test_update_threshold_zero_clears_it(client, make_group):
    group = await make_group(name="g", auto_assign_total_spent_kopeks=100)
    r = await client.patch(f"/promo-groups/{group['id']}", json={"auto_assign_total_spent_kopeks": 0})
    assert r.json()["auto_assign_total_spent_kopeks"] is None


async def test_update_rename_rules(client, make_group):
    await make_group(name="VIP")
    group = await make_group(name="Gold")
    r = await client.patch(f"/promo-groups/{group['id']}", json={"name": "VIP"})
    assert r.status_code == 400
    assert r.json() == DUPLICATE
    r = await client.patch(f"/promo-groups/{group['id']}", json={"name": "Platinum"})
    assert r.status_code == 200 and r.json()["name"] == "Platinum"


@pytest.mark.parametrize(
    "payload",
    [{"server_discount_percent": 101}, {"name": ""}, {"period_discounts": {"1": -1}}, {"priority": -2}],
)
async def test_update_bounds_are_422(client, make_group, payload):
    group = await make_group(name="g")
    r = await client.patch(f"/promo-groups/{group['id']}", json=payload)
    assert r.status_code == 422


async def test_update_404(client):
    r = await client.patch("/promo-groups/999", json={"name": "x"})
    assert r.status_code == 404
    assert r.json() == NOT_FOUND


async def test_setting_default_unsets_the_previous_one(client, make_group, rows):
    first = await make_group(name="first")
    second = await make_group(name="second")
    r = await client.patch(f"/promo-groups/{second['id']}", json={"is_default": True})
    assert r.status_code == 200 and r.json()["is_default"] is True
    assert [g.id for g in await rows(PromoGroup, is_default=True)] == [second["id"]]
    r = await client.get(f"/promo-groups/{first['id']}")
    assert r.json()["is_default"] is False


async def test_unsetting_default_hands_it_to_the_oldest_other_group(client, make_group, rows):
    first = await make_group(name="first")
    second = await make_group(name="second")
    third = await make_group(name="third", is_default=True)
    r = await client.patch(f"/promo-groups/{third['id']}", json={"is_default": False})
    assert r.status_code == 200 and r.json()["is_default"] is False
    assert [g.id for g in await rows(PromoGroup, is_default=True)] == [first["id"]]
    assert second["is_default"] is False


async def test_the_only_group_stays_default(client, make_group):
    only = await make_group(name="only")
    r = await client.patch(f"/promo-groups/{only['id']}", json={"is_default": False})
    assert r.status_code == 200
    assert r.json()["is_default"] is True
