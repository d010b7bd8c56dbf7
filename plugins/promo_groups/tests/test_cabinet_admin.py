"""`/cabinet/admin/promo-groups` (tag "Admin Promo Groups"): the cabinet administrators'
promo group operations — their permissions, the same rules and answers as the Web API, and
the database state they leave (401 and 403 at the gate: tests/test_plugin_permissions.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from subsvc_promo_groups.models import PromoGroup
from subsvc_users.models import User

BASE = "/cabinet/admin/promo-groups"
NOT_FOUND = {"detail": "Promo group not found"}

# (method, path, body, permission)
OPERATIONS: list[tuple[str, str, Any, str]] = [
    ("GET", "", None, "promo_groups:read"),
    ("POST", "", {"name": "VIP"}, "promo_groups:create"),
    ("GET", "/{id}", None, "promo_groups:read"),
    ("PATCH", "/{id}", {"name": "Gold"}, "promo_groups:edit"),
    ("DELETE", "/{id}", None, "promo_groups:delete"),
]


def _normalise(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


def test_the_tag_has_its_five_operations_each_with_its_permission(app):
    declared = {
        (e.method, _normalise(e.path)): e for e in app.state.endpoints if e.tag == "Admin Promo Groups"
    }
    expected = {(method, _normalise(BASE + path)): permission for method, path, _, permission in OPERATIONS}
    assert set(declared) == set(expected)
    assert {key: e.permission for key, e in declared.items()} == expected
    assert {e.area for e in declared.values()} == {"cabinet-admin"}
    assert declared[("POST", BASE)].status_code == 201
    assert declared[("DELETE", BASE + "/{}")].status_code == 204


async def test_create_read_change_delete(admin, rows):
    created = await admin.post(
        BASE,
        json={
            "name": " VIP ",
            "server_discount_percent": 15,
            "period_discounts": {"30": 5},
            "is_default": False,
        },
    )
    assert created.status_code == 201
    vip = created.json()
    assert (vip["name"], vip["server_discount_percent"], vip["period_discounts"]) == ("VIP", 15, {"30": 5})
    assert vip["is_default"] is True  # the first group is the default one
    assert vip["members_count"] == 0

    other = (await admin.post(BASE, json={"name": "Friends", "traffic_discount_percent": 7})).json()
    assert other["is_default"] is False

    read = await admin.get(f"{BASE}/{other['id']}")
    assert read.status_code == 200
    assert read.json() == other

    changed = await admin.patch(
        f"{BASE}/{other['id']}", json={"device_discount_percent": 3, "is_default": True}
    )
    assert changed.status_code == 200
    assert (changed.json()["device_discount_percent"], changed.json()["is_default"]) == (3, True)
    stored = {g.name: g for g in await rows(PromoGroup)}
    assert (stored["Friends"].is_default, stored["VIP"].is_default) == (True, False)

    assert (await admin.delete(f"{BASE}/{vip['id']}")).status_code == 204
    assert [g.name for g in await rows(PromoGroup)] == ["Friends"]


async def test_list_is_the_web_apis_list_with_members_counted(admin, client, make_group, make_user):
    base = await make_group(name="Base")
    vip = await make_group(name="VIP", priority=10)
    for _ in range(3):
        await make_user(promo_group_id=vip["id"])
    await make_user()  # joins the default group (Base)

    page = await admin.get(BASE, params={"limit": 1, "offset": 0})
    assert page.status_code == 200
    body = page.json()
    assert (body["total"], body["limit"], body["offset"]) == (2, 1, 0)
    assert [(g["name"], g["members_count"]) for g in body["items"]] == [("VIP", 3)]  # priority first

    full = (await admin.get(BASE)).json()
    assert [(g["id"], g["members_count"]) for g in full["items"]] == [(vip["id"], 3), (base["id"], 1)]
    assert full == (await client.get("/promo-groups")).json()


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 201}, {"offset": -1}])
async def test_list_bounds_are_422(admin, params):
    response = await admin.get(BASE, params=params)
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error["loc"] == ["query", next(iter(params))]


async def test_unknown_ids_are_404(admin, make_group):
    await make_group(name="Base")
    for method, body in (("GET", None), ("PATCH", {"name": "x"}), ("DELETE", None)):
        response = await admin.request(method, f"{BASE}/999999", json=body)
        assert response.status_code == 404
        assert response.json() == NOT_FOUND


async def test_a_taken_name_is_400_and_changes_nothing(admin, make_group, rows):
    await make_group(name="Base")
    other = await make_group(name="Other")
    assert (await admin.post(BASE, json={"name": "Base"})).json() == {
        "detail": "Promo group with this name already exists"
    }
    renamed = await admin.patch(f"{BASE}/{other['id']}", json={"name": "Base"})
    assert renamed.status_code == 400
    assert sorted(g.name for g in await rows(PromoGroup)) == ["Base", "Other"]


async def test_out_of_range_discounts_are_422(admin, rows):
    response = await admin.post(BASE, json={"name": "X", "server_discount_percent": 101})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "server_discount_percent"]
    assert await rows(PromoGroup) == []


async def test_the_default_group_cannot_be_deleted(admin, make_group, rows):
    base = await make_group(name="Base")
    response = await admin.delete(f"{BASE}/{base['id']}")
    assert response.status_code == 400
    assert response.json() == {"detail": "Cannot delete default promo group"}
    assert [g.id for g in await rows(PromoGroup)] == [base["id"]]


async def test_deleting_a_group_moves_its_members_to_the_default(admin, make_group, make_user, rows):
    base = await make_group(name="Base")
    vip = await make_group(name="VIP")
    user = await make_user(promo_group_id=vip["id"])
    assert (await admin.delete(f"{BASE}/{vip['id']}")).status_code == 204
    (member,) = await rows(User, id=user["id"])
    assert member.promo_group_id == base["id"]
    assert (await admin.get(f"{BASE}/{base['id']}")).json()["members_count"] == 1
