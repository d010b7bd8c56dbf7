"""Policies: CRUD, condition validation, and who may manage them."""

from __future__ import annotations

import pytest
from subsvc_rbac.models import AccessPolicy

RBAC = "/cabinet/admin/rbac"
BASE = {"name": "Night", "effect": "deny", "resource": "users", "actions": ["edit", "block"]}


async def _role(admin, name="Editors", level=40) -> dict:
    return (await admin.post(f"{RBAC}/roles", json={"name": name, "level": level})).json()


async def test_create_and_list_policies(admin, rows):
    role = await _role(admin)
    body = {
        **BASE,
        "description": "No edits at night",
        "role_id": role["id"],
        "priority": 10,
        "conditions": {"time_range": {"start": "22:00", "end": "06:00"}, "ip_whitelist": ["10.0.0.0/8"]},
    }
    response = await admin.post(f"{RBAC}/policies", json=body)
    assert response.status_code == 201
    policy = response.json()
    assert policy == {
        **body,
        "id": policy["id"],
        "role_name": "Editors",
        "is_active": True,
        "created_by": 1,
        "created_at": policy["created_at"],
    }
    glob = (await admin.post(f"{RBAC}/policies", json={**BASE, "name": "Global", "priority": 50})).json()
    assert glob["role_id"] is None and glob["role_name"] is None and glob["conditions"] == {}
    listed = (await admin.get(f"{RBAC}/policies")).json()
    assert [p["name"] for p in listed] == ["Global", "Night"]  # priority first
    only_role = (await admin.get(f"{RBAC}/policies", params={"role_id": role["id"]})).json()
    assert [p["name"] for p in only_role] == ["Night"]
    assert len(await rows(AccessPolicy)) == 2


@pytest.mark.parametrize(
    ("fields", "location"),
    [
        ({"effect": "maybe"}, ["body", "effect"]),
        ({"name": ""}, ["body", "name"]),
        ({"name": "n" * 201}, ["body", "name"]),
        ({"resource": ""}, ["body", "resource"]),
        ({"priority": 1001}, ["body", "priority"]),
        ({"conditions": {"time_range": {"start": "25:00", "end": "06:00"}}}, ["body", "conditions"]),
        ({"conditions": {"time_range": {"start": "10:00", "end": "10:00"}}}, ["body", "conditions"]),
        ({"conditions": {"time_range": "22-06"}}, ["body", "conditions"]),
        ({"conditions": {"ip_whitelist": ["10.0.0.300"]}}, ["body", "conditions"]),
        ({"conditions": {"ip_whitelist": []}}, ["body", "conditions"]),
        ({"conditions": {"weekday": "monday"}}, ["body", "conditions"]),
        ({"conditions": {"max_actions_per_hour": 0}}, ["body", "conditions"]),
    ],
)
async def test_policy_fields_are_validated(admin, fields, location):
    response = await admin.post(f"{RBAC}/policies", json={**BASE, **fields})
    assert response.status_code == 422, response.text
    assert [error["loc"] for error in response.json()["detail"]] == [location]


async def test_unknown_role_is_404(admin):
    response = await admin.post(f"{RBAC}/policies", json={**BASE, "role_id": 777_777})
    assert (response.status_code, response.json()) == (404, {"detail": "Referenced role not found"})


async def test_update_changes_only_the_fields_sent(admin):
    role = await _role(admin)
    policy = (await admin.post(f"{RBAC}/policies", json={**BASE, "role_id": role["id"]})).json()
    url = f"{RBAC}/policies/{policy['id']}"
    response = await admin.put(url, json={"priority": 7, "conditions": {"ip_whitelist": ["192.0.2.1"]}})
    assert response.status_code == 200
    updated = response.json()
    assert (updated["priority"], updated["conditions"], updated["actions"]) == (
        7,
        {"ip_whitelist": ["192.0.2.1"]},
        ["edit", "block"],
    )
    assert updated["role_name"] == "Editors"
    made_global = (await admin.put(url, json={"role_id": None})).json()
    assert made_global["role_id"] is None
    off = await admin.put(url, json={"is_active": False})
    assert off.json()["is_active"] is False
    assert (await admin.get(f"{RBAC}/policies")).json() == []
    everything = (await admin.get(f"{RBAC}/policies", params={"include_inactive": "true"})).json()
    assert [p["id"] for p in everything] == [policy["id"]]
    assert (await admin.put(f"{RBAC}/policies/555555", json={"name": "x"})).json() == {
        "detail": "Policy not found"
    }
    bad_role = await admin.put(url, json={"role_id": 555555})
    assert (bad_role.status_code, bad_role.json()) == (404, {"detail": "Referenced role not found"})


async def test_delete_policy(admin, rows):
    policy = (await admin.post(f"{RBAC}/policies", json=BASE)).json()
    response = await admin.delete(f"{RBAC}/policies/{policy['id']}")
    assert (response.status_code, response.json()) == (
        200,
        {"message": "Policy deleted", "policy_id": policy["id"]},
    )
    assert await rows(AccessPolicy) == []
    assert (await admin.delete(f"{RBAC}/policies/{policy['id']}")).status_code == 404


async def test_who_may_manage_policies(admin, holder):
    high = await _role(admin, name="High", level=60)
    low = await _role(admin, name="Low", level=10)
    _, http = await holder(level=50, permissions=["roles:*"])
    async with http:
        on_high = await http.post(f"{RBAC}/policies", json={**BASE, "role_id": high["id"]})
        on_everyone = await http.post(f"{RBAC}/policies", json=BASE)
        on_low = await http.post(f"{RBAC}/policies", json={**BASE, "role_id": low["id"]})
        move_up = await http.put(f"{RBAC}/policies/{on_low.json()['id']}", json={"role_id": high["id"]})
    assert (on_high.status_code, on_high.json()) == (
        403,
        {"detail": "Cannot manage policies of a role at or above your own level"},
    )
    assert (on_everyone.status_code, on_everyone.json()) == (
        403,
        {"detail": "Only superadmins can manage policies that apply to every role"},
    )
    assert on_low.status_code == 201
    assert move_up.status_code == 403
