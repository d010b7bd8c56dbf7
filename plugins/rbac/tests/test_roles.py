"""Roles: the system roles, CRUD, bounds, and the level and grant rules."""

from __future__ import annotations

import httpx2
import pytest
from subsvc_rbac.models import AccessPolicy, AdminRole, UserRole

RBAC = "/cabinet/admin/rbac"


async def _create(admin: httpx2.AsyncClient, **fields) -> dict:
    response = await admin.post(f"{RBAC}/roles", json={"name": "Editors", "level": 40, **fields})
    assert response.status_code == 201, response.text
    return response.json()


async def test_five_system_roles_are_seeded_highest_level_first(admin):
    response = await admin.get(f"{RBAC}/roles")
    assert response.status_code == 200
    roles = response.json()
    assert [(r["name"], r["level"], r["is_system"]) for r in roles] == [
        ("Superadmin", 999, True),
        ("Admin", 100, True),
        ("Moderator", 50, True),
        ("Marketer", 30, True),
        ("Support", 20, True),
    ]
    by_name = {r["name"]: r for r in roles}
    assert by_name["Superadmin"]["permissions"] == ["*:*"]
    assert by_name["Support"]["permissions"] == ["tickets:read", "tickets:reply", "users:read"]
    assert "roles:delete" not in by_name["Admin"]["permissions"]
    assert {"roles:read", "roles:assign", "audit_log:*", "users:*"} <= set(by_name["Admin"]["permissions"])
    assert all(r["user_count"] == 0 and r["is_active"] and r["created_at"] for r in roles)


async def test_create_role_answers_the_role(admin, rows):
    body = {
        "name": "Editors",
        "description": "Edit users",
        "level": 40,
        "permissions": ["users:read", "users:edit", "users:read", "roles:*"],
        "color": "#00ff00",
        "icon": "pen",
    }
    response = await admin.post(f"{RBAC}/roles", json=body)
    assert response.status_code == 201
    role = response.json()
    assert role == {
        "id": role["id"],
        "name": "Editors",
        "description": "Edit users",
        "level": 40,
        "permissions": ["users:read", "users:edit", "roles:*"],  # repeats dropped
        "color": "#00ff00",
        "icon": "pen",
        "is_system": False,
        "is_active": True,
        "user_count": 0,
        "created_at": role["created_at"],
    }
    (stored,) = await rows(AdminRole, name="Editors")
    assert (stored.created_by, stored.is_system) == (1, False)


@pytest.mark.parametrize(
    ("body", "location"),
    [
        ({"name": "", "level": 1}, ["body", "name"]),
        ({"name": "x" * 101, "level": 1}, ["body", "name"]),
        ({"name": "ok", "level": 999}, ["body", "level"]),
        ({"name": "ok", "level": -1}, ["body", "level"]),
        ({"name": "ok", "level": 1, "color": "#1234567"}, ["body", "color"]),
        ({"name": "ok", "level": 1, "icon": "i" * 51}, ["body", "icon"]),
        ({"level": 1}, ["body", "name"]),
        ({"name": "ok"}, ["body", "level"]),
    ],
)
async def test_create_role_bounds(admin, body, location):
    response = await admin.post(f"{RBAC}/roles", json=body)
    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["detail"]] == [location]


async def test_create_role_refuses_unknown_permissions(admin):
    body = {"name": "Bad", "level": 1, "permissions": ["users:read", "users:fly", "nothing:*", "tickets"]}
    response = await admin.post(f"{RBAC}/roles", json=body)
    assert response.status_code == 400
    assert response.json() == {"detail": "Invalid permissions: users:fly, nothing:*, tickets"}


async def test_duplicate_name_is_409_and_changes_nothing(admin, rows):
    await _create(admin)
    response = await admin.post(f"{RBAC}/roles", json={"name": "Editors", "level": 10})
    assert response.status_code == 409
    assert response.json() == {"detail": "Role with this name already exists"}
    assert len(await rows(AdminRole, name="Editors")) == 1


async def test_nobody_creates_at_or_above_their_own_level(holder):
    _, http = await holder(level=40, permissions=["roles:*", "users:read"])
    async with http:
        for level in (40, 41):
            response = await http.post(f"{RBAC}/roles", json={"name": f"L{level}", "level": level})
            assert response.status_code == 403
            assert response.json() == {"detail": "Cannot create a role with level >= your own role level"}
        below = await http.post(
            f"{RBAC}/roles", json={"name": "L39", "level": 39, "permissions": ["users:read"]}
        )
    assert below.status_code == 201


async def test_nobody_grants_what_they_do_not_hold(holder):
    _, http = await holder(level=40, permissions=["roles:create", "users:read"])
    async with http:
        response = await http.post(
            f"{RBAC}/roles",
            json={"name": "More", "level": 1, "permissions": ["users:read", "users:*", "*:*"]},
        )
    assert response.status_code == 403
    assert response.json() == {"detail": "You cannot grant permissions you do not hold: users:*, *:*"}


async def test_section_wildcard_holder_may_grant_its_actions(holder):
    _, http = await holder(level=40, permissions=["roles:*", "users:*"])
    async with http:
        body = {"name": "Sub", "level": 1, "permissions": ["users:read", "users:*", "roles:read"]}
        assert (await http.post(f"{RBAC}/roles", json=body)).status_code == 201


async def test_update_changes_only_the_fields_sent(admin):
    role = await _create(admin, description="old", color="#111111", permissions=["users:read"])
    response = await admin.put(f"{RBAC}/roles/{role['id']}", json={"description": None, "level": 45})
    assert response.status_code == 200
    updated = response.json()
    assert (updated["description"], updated["level"], updated["color"]) == (None, 45, "#111111")
    assert updated["permissions"] == ["users:read"]
    renamed = await admin.put(
        f"{RBAC}/roles/{role['id']}", json={"name": "Writers", "permissions": ["users:*"]}
    )
    assert (renamed.json()["name"], renamed.json()["permissions"]) == ("Writers", ["users:*"])


async def test_update_unknown_role_is_404_and_one_beyond_integer_422(admin):
    for role_id in (424242, 2**31 - 1):
        response = await admin.put(f"{RBAC}/roles/{role_id}", json={"name": "x"})
        assert response.status_code == 404
        assert response.json() == {"detail": "Role not found"}
    response = await admin.put(f"{RBAC}/roles/{2**40}", json={"name": "x"})
    assert response.status_code == 422
    assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [
        (["path", "role_id"], "less_than_equal")
    ]


async def test_update_to_a_taken_name_is_409(admin):
    role = await _create(admin)
    response = await admin.put(f"{RBAC}/roles/{role['id']}", json={"name": "Support"})
    assert response.status_code == 409


async def test_system_role_keeps_level_and_activity(admin):
    support = next(r for r in (await admin.get(f"{RBAC}/roles")).json() if r["name"] == "Support")
    url = f"{RBAC}/roles/{support['id']}"
    response = await admin.put(url, json={"level": 21, "is_active": False})
    assert response.status_code == 403
    assert response.json() == {"detail": "Cannot change is_active, level on a system role"}
    # sending the values it has is no change; other fields may change
    same = await admin.put(url, json={"level": 20, "is_active": True, "description": "Help desk"})
    assert same.status_code == 200
    assert same.json()["description"] == "Help desk"


async def test_edit_rules_by_level(admin, holder):
    high = await _create(admin, name="High", level=60)
    low = await _create(admin, name="Low", level=10)
    _, http = await holder(level=50, permissions=["roles:*"])
    async with http:
        above = await http.put(f"{RBAC}/roles/{high['id']}", json={"description": "x"})
        raise_level = await http.put(f"{RBAC}/roles/{low['id']}", json={"level": 50})
        grant = await http.put(f"{RBAC}/roles/{low['id']}", json={"permissions": ["users:read"]})
        fine = await http.put(f"{RBAC}/roles/{low['id']}", json={"level": 49, "permissions": ["roles:read"]})
    assert (above.status_code, above.json()) == (
        403,
        {"detail": "Cannot edit a role at or above your own level"},
    )
    assert (raise_level.status_code, raise_level.json()) == (
        403,
        {"detail": "Cannot set role level >= your own role level"},
    )
    assert (grant.status_code, grant.json()) == (
        403,
        {"detail": "You cannot grant permissions you do not hold: users:read"},
    )
    assert fine.status_code == 200


async def test_editing_may_keep_permissions_the_editor_does_not_hold(admin, holder):
    role = await _create(admin, name="Low", level=10, permissions=["users:read"])
    _, http = await holder(level=50, permissions=["roles:*"])
    async with http:
        response = await http.put(
            f"{RBAC}/roles/{role['id']}", json={"permissions": ["users:read", "roles:read"], "name": "Lower"}
        )
    assert response.status_code == 200
    assert response.json()["permissions"] == ["users:read", "roles:read"]


async def test_delete_role_removes_its_assignments_and_policies(admin, make_user, rows):
    role = await _create(admin)
    user = await make_user()
    assert (
        await admin.post(f"{RBAC}/assignments", json={"user_id": user.id, "role_id": role["id"]})
    ).status_code == 201
    body = {"name": "P", "role_id": role["id"], "effect": "deny", "resource": "users", "actions": ["*"]}
    assert (await admin.post(f"{RBAC}/policies", json=body)).status_code == 201
    response = await admin.delete(f"{RBAC}/roles/{role['id']}")
    assert response.status_code == 200
    assert response.json() == {"message": "Role deleted", "role_id": role["id"]}
    assert await rows(AdminRole, id=role["id"]) == []
    assert await rows(UserRole, role_id=role["id"]) == []
    assert await rows(AccessPolicy, role_id=role["id"]) == []
    assert (await admin.delete(f"{RBAC}/roles/{role['id']}")).status_code == 404


async def test_system_roles_and_higher_roles_cannot_be_deleted(admin, holder):
    roles = {r["name"]: r["id"] for r in (await admin.get(f"{RBAC}/roles")).json()}
    response = await admin.delete(f"{RBAC}/roles/{roles['Support']}")
    assert (response.status_code, response.json()) == (403, {"detail": "Cannot delete a system role"})
    high = await _create(admin, name="High", level=60)
    _, http = await holder(level=50, permissions=["roles:*"])
    async with http:
        denied = await http.delete(f"{RBAC}/roles/{high['id']}")
    assert (denied.status_code, denied.json()) == (
        403,
        {"detail": "Cannot delete a role at or above your own level"},
    )


async def test_inactive_roles_are_listed_on_request(admin):
    role = await _create(admin)
    await admin.put(f"{RBAC}/roles/{role['id']}", json={"is_active": False})
    names = [r["name"] for r in (await admin.get(f"{RBAC}/roles")).json()]
    assert "Editors" not in names
    listed = (await admin.get(f"{RBAC}/roles", params={"include_inactive": "true"})).json()
    assert [r["is_active"] for r in listed if r["name"] == "Editors"] == [False]


async def test_superadmin_holder_manages_everything_below(admin, make_user, token_for, as_user, app):
    """A user holding the Superadmin role (from the settings' sync) manages from level 1000."""
    from subsvc_rbac.seed import seed

    user = await make_user()
    app.state.settings.ADMIN_IDS.append(user.messenger_id)
    try:
        await seed(app.state.db, app.state.settings)
    finally:
        app.state.settings.ADMIN_IDS.remove(user.messenger_id)
    app.state.rbac.grants.invalidate()
    async with as_user(token_for(user)) as http:  # its token no longer makes it a settings admin
        response = await http.post(
            f"{RBAC}/roles", json={"name": "Top", "level": 998, "permissions": ["*:*"]}
        )
    assert response.status_code == 201
