"""Assignments: assign, revoke, reactivate, the Superadmin rule, role holders and the users list."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from subsvc_rbac.models import UserRole

RBAC = "/cabinet/admin/rbac"


async def _role(admin, name="Editors", level=40, permissions=("users:read",)) -> dict:
    body = {"name": name, "level": level, "permissions": list(permissions)}
    response = await admin.post(f"{RBAC}/roles", json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def _system(admin, name: str) -> dict:
    return next(r for r in (await admin.get(f"{RBAC}/roles")).json() if r["name"] == name)


async def test_assign_answers_the_assignment(admin, make_user, rows):
    role = await _role(admin)
    user = await make_user(username="ann", first_name="Ann", email="ann@example.com")
    expires = (datetime.now(UTC) + timedelta(days=3)).replace(microsecond=0)
    body = {"user_id": user.id, "role_id": role["id"], "expires_at": expires.isoformat()}
    response = await admin.post(f"{RBAC}/assignments", json=body)
    assert response.status_code == 201
    answer = response.json()
    assert answer == {
        "id": answer["id"],
        "user_id": user.id,
        "role_id": role["id"],
        "role_name": "Editors",
        "user_messenger_id": user.messenger_id,
        "user_username": "ann",
        "user_first_name": "Ann",
        "user_email": "ann@example.com",
        "assigned_by": 1,
        "assigned_at": answer["assigned_at"],
        "expires_at": expires.isoformat().replace("+00:00", "Z"),
        "is_active": True,
    }
    (stored,) = await rows(UserRole, user_id=user.id)
    assert stored.expires_at == expires
    roles = {r["name"]: r for r in (await admin.get(f"{RBAC}/roles")).json()}
    assert roles["Editors"]["user_count"] == 1


async def test_expiry_without_offset_is_utc_and_past_expiry_is_refused(admin, make_user):
    role = await _role(admin)
    user = await make_user()
    later = (datetime.now(UTC) + timedelta(hours=1)).replace(tzinfo=None, microsecond=0)
    ok = await admin.post(
        f"{RBAC}/assignments",
        json={"user_id": user.id, "role_id": role["id"], "expires_at": later.isoformat()},
    )
    assert ok.status_code == 201
    assert ok.json()["expires_at"].startswith(later.isoformat())
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    refused = await admin.post(
        f"{RBAC}/assignments", json={"user_id": user.id, "role_id": role["id"], "expires_at": past}
    )
    assert (refused.status_code, refused.json()) == (400, {"detail": "expires_at must be in the future"})


async def test_unknown_role_or_user_is_404_and_ids_beyond_integer_422(admin, make_user):
    role = await _role(admin)
    user = await make_user()
    missing_role = await admin.post(f"{RBAC}/assignments", json={"user_id": user.id, "role_id": 999_999})
    assert (missing_role.status_code, missing_role.json()) == (404, {"detail": "Role not found"})
    for user_id in (999_999, 2**31 - 1):
        missing_user = await admin.post(
            f"{RBAC}/assignments", json={"user_id": user_id, "role_id": role["id"]}
        )
        assert (missing_user.status_code, missing_user.json()) == (404, {"detail": "Target user not found"})
    for field, body in (
        ("user_id", {"user_id": 2**40, "role_id": role["id"]}),
        ("role_id", {"user_id": user.id, "role_id": 2**40}),
    ):
        beyond = await admin.post(f"{RBAC}/assignments", json=body)
        assert beyond.status_code == 422
        assert [(e["loc"], e["type"]) for e in beyond.json()["detail"]] == [
            (["body", field], "less_than_equal")
        ]


async def test_superadmin_is_never_assigned_through_the_api(admin, make_user):
    superadmin = await _system(admin, "Superadmin")
    user = await make_user()
    response = await admin.post(f"{RBAC}/assignments", json={"user_id": user.id, "role_id": superadmin["id"]})
    assert response.status_code == 403
    assert response.json() == {
        "detail": "The Superadmin role is granted only through ADMIN_IDS / ADMIN_EMAILS"
    }


async def test_assignment_rules_by_level_and_grants(admin, holder, make_user):
    same = await _role(admin, name="Same", level=50, permissions=["users:read"])
    wide = await _role(admin, name="Wide", level=10, permissions=["users:*"])
    fine = await _role(admin, name="Fine", level=10, permissions=["users:read"])
    assigner, http = await holder(level=50, permissions=["roles:assign", "users:read"])
    target = await make_user()
    async with http:
        at_level = await http.post(f"{RBAC}/assignments", json={"user_id": target.id, "role_id": same["id"]})
        too_wide = await http.post(f"{RBAC}/assignments", json={"user_id": target.id, "role_id": wide["id"]})
        allowed = await http.post(f"{RBAC}/assignments", json={"user_id": target.id, "role_id": fine["id"]})
    assert (at_level.status_code, at_level.json()) == (
        403,
        {"detail": "Cannot assign a role at or above your own level"},
    )
    assert (too_wide.status_code, too_wide.json()) == (
        403,
        {"detail": "You cannot grant permissions you do not hold: users:*"},
    )
    assert allowed.status_code == 201
    assert allowed.json()["assigned_by"] == assigner.id


async def test_revoke_is_soft_and_assigning_again_reactivates(admin, make_user, rows):
    role = await _role(admin)
    user = await make_user()
    first = (await admin.post(f"{RBAC}/assignments", json={"user_id": user.id, "role_id": role["id"]})).json()
    revoked = await admin.delete(f"{RBAC}/assignments/{first['id']}")
    assert revoked.status_code == 200
    assert revoked.json() == {"message": "Role revoked", "assignment_id": first["id"]}
    (stored,) = await rows(UserRole, id=first["id"])
    assert (stored.is_active, stored.revocation_source) == (False, "ui")
    assert (await admin.delete(f"{RBAC}/assignments/{first['id']}")).status_code == 200  # again: no error
    assert (await admin.get(f"{RBAC}/roles/{role['id']}/users")).json() == []

    again = await admin.post(f"{RBAC}/assignments", json={"user_id": user.id, "role_id": role["id"]})
    assert again.status_code == 201
    assert again.json()["id"] == first["id"]
    (stored,) = await rows(UserRole, id=first["id"])
    assert (stored.is_active, stored.revocation_source) == (True, None)


async def test_revoke_rules(admin, holder, make_user, app):
    high = await _role(admin, name="High", level=60)
    user = await make_user()
    assignment = (
        await admin.post(f"{RBAC}/assignments", json={"user_id": user.id, "role_id": high["id"]})
    ).json()
    _, http = await holder(level=50, permissions=["roles:assign"])
    async with http:
        above = await http.delete(f"{RBAC}/assignments/{assignment['id']}")
        missing = await http.delete(f"{RBAC}/assignments/987654")
    assert (above.status_code, above.json()) == (
        403,
        {"detail": "Cannot revoke a role at or above your own level"},
    )
    assert (missing.status_code, missing.json()) == (404, {"detail": "Role assignment not found"})


async def test_role_users_lists_active_assignments(admin, make_user):
    role = await _role(admin)
    users = [await make_user(first_name=f"U{i}") for i in range(3)]
    ids = []
    for user in users:
        response = await admin.post(f"{RBAC}/assignments", json={"user_id": user.id, "role_id": role["id"]})
        ids.append(response.json()["id"])
    await admin.delete(f"{RBAC}/assignments/{ids[0]}")
    listed = (await admin.get(f"{RBAC}/roles/{role['id']}/users")).json()
    assert sorted(item["id"] for item in listed) == sorted(ids[1:])
    assert {item["user_first_name"] for item in listed} == {"U1", "U2"}
    page = (await admin.get(f"{RBAC}/roles/{role['id']}/users", params={"limit": 1, "offset": 1})).json()
    assert len(page) == 1
    missing = await admin.get(f"{RBAC}/roles/999999/users")
    assert (missing.status_code, missing.json()) == (404, {"detail": "Role not found"})


async def test_users_list_holders_of_effective_roles(admin, make_user):
    editors = await _role(admin, name="Editors", level=40)
    readers = await _role(admin, name="Readers", level=10)
    idle = await _role(admin, name="Idle", level=5)
    ann = await make_user(first_name="Ann", last_name="Lee", username="ann", email="ann@example.com")
    bob = await make_user(first_name="Bob")
    await make_user(first_name="Nobody")
    for user, role in ((ann, readers), (ann, editors), (bob, idle)):
        await admin.post(f"{RBAC}/assignments", json={"user_id": user.id, "role_id": role["id"]})
    await admin.put(f"{RBAC}/roles/{idle['id']}", json={"is_active": False})
    response = await admin.get(f"{RBAC}/users")
    assert response.status_code == 200
    assert response.json() == [
        {
            "user_id": ann.id,
            "messenger_id": ann.messenger_id,
            "username": "ann",
            "first_name": "Ann",
            "last_name": "Lee",
            "email": "ann@example.com",
            "role_names": ["Editors", "Readers"],
        }
    ]
