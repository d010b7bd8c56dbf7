"""The admin gate: authentication, permission matching, expiry, inactive roles, policies."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import httpx2
import pytest
from subsvc_rbac.grants import INVALIDATE_CHANNEL

from subsvc.testing import recorded_statements

RBAC = "/cabinet/admin/rbac"

ROUTES = [
    ("GET", "/permissions"),
    ("GET", "/users"),
    ("GET", "/roles"),
    ("POST", "/roles"),
    ("PUT", "/roles/1"),
    ("DELETE", "/roles/1"),
    ("GET", "/roles/1/users"),
    ("POST", "/assignments"),
    ("DELETE", "/assignments/1"),
    ("GET", "/policies"),
    ("POST", "/policies"),
    ("PUT", "/policies/1"),
    ("DELETE", "/policies/1"),
    ("GET", "/audit-log"),
    ("GET", "/audit-log/export"),
]
PERMISSION_OF = {
    ("GET", "/permissions"): "roles:read",
    ("POST", "/roles"): "roles:create",
    ("PUT", "/roles/1"): "roles:edit",
    ("DELETE", "/roles/1"): "roles:delete",
    ("POST", "/assignments"): "roles:assign",
    ("GET", "/audit-log/export"): "audit_log:export",
}


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_every_route_needs_a_jwt(
    anon_client: httpx2.AsyncClient, client: httpx2.AsyncClient, method, path
):
    response = await anon_client.request(method, RBAC + path)
    assert response.status_code == 401
    assert response.json() == {"detail": "Authentication required"}
    assert response.headers["www-authenticate"] == "Bearer"
    # an API key is no credential for the cabinet admin area
    assert (await client.request(method, RBAC + path)).status_code == 401


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_every_route_refuses_a_user_without_roles(anon_client, user_token, audit_rows, method, path):
    response = await anon_client.request(
        method, RBAC + path, headers={"Authorization": f"Bearer {user_token}"}
    )
    assert response.status_code == 403
    assert response.json() == {"detail": "Permission denied: No active roles assigned"}
    (row,) = await audit_rows(status="denied")
    assert (row.user_id, row.request_method, row.request_path) == (2, method, RBAC + path)
    assert row.details == {"reason": "No active roles assigned"}


@pytest.mark.parametrize(("method", "path"), list(PERMISSION_OF))
async def test_a_role_without_the_permission_is_refused(holder, method, path):
    _, http = await holder(level=10, permissions=["users:read"])
    async with http:
        response = await http.request(method, RBAC + path, json={})
    assert response.status_code == 403
    assert response.json() == {"detail": "Permission denied: Permission not granted by any role"}


async def test_refusal_comes_before_input_validation(holder):
    _, http = await holder(level=10, permissions=["users:read"])
    async with http:
        response = await http.post(f"{RBAC}/roles", content=b"{not json")
    assert response.status_code == 403


async def test_settings_administrator_passes_without_roles(admin: httpx2.AsyncClient):
    response = await admin.get(f"{RBAC}/permissions")
    assert response.status_code == 200
    sections = {item["section"]: item["actions"] for item in response.json()}
    assert sections["roles"] == ["read", "create", "edit", "delete", "assign"]
    assert sections["audit_log"] == ["read", "export"]
    assert "read" in sections["users"]  # registered by the users plugin


@pytest.mark.parametrize("pattern", ["roles:read", "roles:*", "*:*"])
async def test_exact_section_and_global_wildcards_grant(holder, pattern):
    _, http = await holder(level=10, permissions=[pattern])
    async with http:
        assert (await http.get(f"{RBAC}/roles")).status_code == 200


async def test_section_wildcard_covers_only_its_section(holder):
    _, http = await holder(level=10, permissions=["audit_log:*"])
    async with http:
        assert (await http.get(f"{RBAC}/audit-log")).status_code == 200
        assert (await http.get(f"{RBAC}/roles")).status_code == 403


async def test_expired_assignment_grants_nothing(admin, make_user, token_for, as_user):
    role = (
        await admin.post(f"{RBAC}/roles", json={"name": "Short", "level": 5, "permissions": ["roles:read"]})
    ).json()
    user = await make_user()
    soon = datetime.now(UTC) + timedelta(seconds=1)
    assignment = {"user_id": user.id, "role_id": role["id"], "expires_at": soon.isoformat()}
    assert (await admin.post(f"{RBAC}/assignments", json=assignment)).status_code == 201
    async with as_user(token_for(user)) as http:
        assert (await http.get(f"{RBAC}/roles")).status_code == 200
        # the cached standing must not outlive the assignment
        await asyncio.sleep(max(0.0, (soon - datetime.now(UTC)).total_seconds()) + 0.05)
        response = await http.get(f"{RBAC}/roles")
    assert response.status_code == 403
    assert response.json()["detail"] == "Permission denied: No active roles assigned"


async def _role_id(admin: httpx2.AsyncClient, name: str) -> int:
    return next(role["id"] for role in (await admin.get(f"{RBAC}/roles")).json() if role["name"] == name)


async def test_deactivated_role_grants_nothing_at_once(admin, holder):
    _, http = await holder(level=10, permissions=["roles:read"])
    async with http:
        assert (await http.get(f"{RBAC}/roles")).status_code == 200
        role_id = await _role_id(admin, "role-1")
        assert (await admin.put(f"{RBAC}/roles/{role_id}", json={"is_active": False})).status_code == 200
        assert (await http.get(f"{RBAC}/roles")).status_code == 403  # the cache was dropped
        assert (await admin.put(f"{RBAC}/roles/{role_id}", json={"is_active": True})).status_code == 200
        assert (await http.get(f"{RBAC}/roles")).status_code == 200


async def test_revoked_assignment_grants_nothing_at_once(admin, holder):
    _, http = await holder(level=10, permissions=["roles:read"])
    async with http:
        assert (await http.get(f"{RBAC}/roles")).status_code == 200
        role_id = await _role_id(admin, "role-1")
        (assignment,) = (await admin.get(f"{RBAC}/roles/{role_id}/users")).json()
        assert (await admin.delete(f"{RBAC}/assignments/{assignment['id']}")).status_code == 200
        assert (await http.get(f"{RBAC}/roles")).status_code == 403


# --- policies --------------------------------------------------------------------------------------


def _clock(delta_hours: int) -> str:
    return (datetime.now(UTC) + timedelta(hours=delta_hours)).strftime("%H:%M")


async def _policy(admin: httpx2.AsyncClient, **fields) -> dict:
    body = {"name": "Policy", "effect": "deny", "resource": "roles", "actions": ["read"], **fields}
    response = await admin.post(f"{RBAC}/policies", json=body)
    assert response.status_code == 201, response.text
    return response.json()


@pytest.mark.parametrize(
    ("start", "end", "denied"),
    [
        (-1, 1, True),  # now is inside start..end
        (1, 2, False),  # later today
        (-1, -2, True),  # overnight range (start after end) that contains now
        (1, -1, False),  # overnight range that ends before now and starts after it
    ],
)
async def test_deny_policy_by_utc_time_range(admin, holder, start, end, denied):
    _, http = await holder(level=10, permissions=["roles:read"])
    await _policy(
        admin, name="Night freeze", conditions={"time_range": {"start": _clock(start), "end": _clock(end)}}
    )
    async with http:
        response = await http.get(f"{RBAC}/roles")
    if denied:
        assert response.status_code == 403
        assert response.json() == {"detail": "Permission denied: Denied by policy: Night freeze"}
    else:
        assert response.status_code == 200


@pytest.mark.parametrize(
    ("allow_list", "client_ip", "denied"),
    [
        (["127.0.0.1"], "127.0.0.1", False),
        (["10.0.0.0/8"], "127.0.0.1", True),
        (["10.0.0.0/8", "192.0.2.0/24"], "192.0.2.77", False),
        (["2001:db8::/32"], "2001:db8::1", False),
        (["2001:db8::/32"], "198.51.100.1", True),
    ],
)
async def test_deny_policy_outside_an_ip_allow_list(admin, holder, allow_list, client_ip, denied):
    _, http = await holder(level=10, permissions=["roles:read"], client_ip=client_ip)
    await _policy(admin, name="Office only", conditions={"ip_whitelist": allow_list})
    async with http:
        response = await http.get(f"{RBAC}/roles")
    assert response.status_code == (403 if denied else 200)
    if denied:
        assert response.json()["detail"] == "Permission denied: Denied by policy: Office only"


async def test_policy_applies_only_to_its_role_resource_and_actions(admin, holder):
    _, http = await holder(level=10, permissions=["roles:read", "audit_log:read"])
    other = (await admin.post(f"{RBAC}/roles", json={"name": "Other", "level": 5})).json()
    await _policy(admin, name="Other role", role_id=other["id"], actions=["*"])
    await _policy(admin, name="Writes only", actions=["create", "edit"])
    await _policy(admin, name="Audit reads", resource="audit*", actions=["re*"], priority=5)
    async with http:
        assert (await http.get(f"{RBAC}/roles")).status_code == 200
        denied = await http.get(f"{RBAC}/audit-log")
    assert denied.status_code == 403
    assert denied.json()["detail"] == "Permission denied: Denied by policy: Audit reads"


async def test_highest_priority_deny_names_the_reason_and_allow_never_overrides(admin, holder):
    _, http = await holder(level=10, permissions=["roles:read"])
    await _policy(admin, name="Low deny", priority=1)
    await _policy(admin, name="High deny", priority=900)
    await _policy(admin, name="Allow", effect="allow", priority=1000)
    async with http:
        response = await http.get(f"{RBAC}/roles")
    assert response.json() == {"detail": "Permission denied: Denied by policy: High deny"}


async def test_deleting_the_policy_lifts_the_denial(admin, holder):
    _, http = await holder(level=10, permissions=["roles:read"])
    policy = await _policy(admin, name="Freeze")
    async with http:
        assert (await http.get(f"{RBAC}/roles")).status_code == 403
        assert (await admin.delete(f"{RBAC}/policies/{policy['id']}")).status_code == 200
        assert (await http.get(f"{RBAC}/roles")).status_code == 200


async def test_policies_do_not_bind_settings_administrators(admin):
    await _policy(admin, name="Everyone", resource="*", actions=["*"])
    assert (await admin.get(f"{RBAC}/roles")).status_code == 200


async def test_web_api_keys_keep_core_rules(client: httpx2.AsyncClient):
    """The hook abstains for API tokens: Web API routes with permissions still pass."""
    response = await client.get("/users")
    assert response.status_code == 200


# --- cost and invalidation -------------------------------------------------------------------------


async def test_grants_cost_one_query_then_none_until_a_change(app, admin, holder, db):
    _, http = await holder(level=10, permissions=["roles:read"])
    app.state.rbac.grants.invalidate()
    async with http:
        with recorded_statements(db) as cold:
            assert (await http.get(f"{RBAC}/permissions")).status_code == 200
        with recorded_statements(db) as warm:
            assert (await http.get(f"{RBAC}/permissions")).status_code == 200
    rbac_reads = [s for s in cold if "user_roles" in s or "access_policies" in s]
    assert len([s for s in rbac_reads if "user_roles" in s]) == 1  # the standing: one query
    assert len([s for s in rbac_reads if "access_policies" in s]) == 1  # the policies, kept too
    assert [s for s in warm if "admin_audit_log" not in s] == []  # nothing on the request's path


async def test_a_change_announced_on_the_bus_drops_the_cache(app, holder):
    user, http = await holder(level=10, permissions=["roles:read"])
    async with http:
        await http.get(f"{RBAC}/permissions")
    grants = app.state.rbac.grants
    assert user.id in grants._standings
    await app.state.bus.publish(INVALIDATE_CHANNEL, "*")  # as another instance's change arrives
    assert grants._standings == {} and grants._policies is None
