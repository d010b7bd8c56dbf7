"""The audit log: a row for every permission-checked call, filters, pages and the CSV export."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime, timedelta

import pytest
from subsvc_rbac.audit_log import safe_cell

RBAC = "/cabinet/admin/rbac"


async def test_allowed_call_is_recorded_with_its_request(admin, audit_rows):
    body = {
        "name": "Editors",
        "level": 10,
        "permissions": [],
        "password": "hunter2",
        "nested": {"api_token": "t"},
    }
    response = await admin.post(f"{RBAC}/roles?note=x", json=body, headers={"User-Agent": "pytest-agent"})
    assert response.status_code == 201
    (row,) = await audit_rows()
    assert (row.user_id, row.action, row.status, row.resource_type) == (1, "roles:create", "success", "roles")
    assert (row.request_method, row.request_path, row.ip_address, row.user_agent) == (
        "POST",
        f"{RBAC}/roles",
        "127.0.0.1",
        "pytest-agent",
    )
    assert row.details == {
        "method": "POST",
        "path": f"{RBAC}/roles",
        "query_params": {"note": "x"},
        "request_body": {**body, "password": "***", "nested": {"api_token": "***"}},
    }
    assert row.created_at <= datetime.now(UTC)


async def test_path_ids_are_the_resource_id(admin, audit_rows):
    await admin.delete(f"{RBAC}/roles/31337")
    (row,) = await audit_rows()
    assert (row.action, row.resource_id, row.details) == (
        "roles:delete",
        "31337",
        {"method": "DELETE", "path": f"{RBAC}/roles/31337"},
    )


async def test_failed_and_refused_calls_keep_their_rows(admin, holder, audit_rows):
    first = await admin.post(f"{RBAC}/roles", json={"name": "Dup", "level": 1})
    second = await admin.post(f"{RBAC}/roles", json={"name": "Dup", "level": 1})
    assert (first.status_code, second.status_code) == (201, 409)
    user, http = await holder(level=10, permissions=["roles:read"])
    async with http:
        assert (await http.delete(f"{RBAC}/roles/{first.json()['id']}")).status_code == 403
    rows = await audit_rows(action="roles:create")
    assert [row.status for row in rows] == ["success"] * 3  # the 409 and the holder's role included
    (denied,) = await audit_rows(status="denied")
    assert (denied.user_id, denied.action, denied.details) == (
        user.id,
        "roles:delete",
        {"reason": "Permission not granted by any role"},
    )


async def test_list_is_newest_first_with_user_names(admin, holder):
    user, http = await holder(level=10, permissions=["audit_log:read"])
    async with http:
        response = await http.get(f"{RBAC}/audit-log")
    assert response.status_code == 200
    page = response.json()
    assert (page["limit"], page["offset"]) == (50, 0)
    newest = page["items"][0]
    assert (newest["user_id"], newest["action"], newest["request_path"]) == (
        user.id,
        "audit_log:read",
        f"{RBAC}/audit-log",
    )
    assert newest["user_first_name"] == user.first_name
    assert set(newest) == {
        "id", "user_id", "action", "resource_type", "resource_id", "details", "ip_address", "user_agent",
        "status", "request_method", "request_path", "created_at", "user_first_name", "user_email",
    }  # fmt: skip
    created = [item["created_at"] for item in page["items"]]
    assert created == sorted(created, reverse=True)
    assert page["total"] == len(page["items"]) == 3  # create role, assign it, this call


async def test_filters_and_pages(admin, user_token, anon_client):
    for index in range(3):
        await admin.post(f"{RBAC}/roles", json={"name": f"R{index}", "level": 1})
    await admin.get(f"{RBAC}/policies")
    await anon_client.get(f"{RBAC}/roles", headers={"Authorization": f"Bearer {user_token}"})

    async def listed(**params) -> dict:
        response = await admin.get(f"{RBAC}/audit-log", params=params)
        assert response.status_code == 200, response.text
        return response.json()

    by_action = await listed(action="ROLES:CR")
    assert (by_action["total"], {i["action"] for i in by_action["items"]}) == (3, {"roles:create"})
    denied = await listed(status="denied")
    assert (denied["total"], denied["items"][0]["user_id"]) == (1, 2)
    assert (await listed(user_id=2))["total"] == 1
    assert (await listed(user_id=2**31 - 1))["total"] == 0
    beyond = await admin.get(f"{RBAC}/audit-log", params={"user_id": 2**40})  # beyond INTEGER
    assert beyond.status_code == 422
    assert [(e["loc"], e["type"]) for e in beyond.json()["detail"]] == [
        (["query", "user_id"], "less_than_equal")
    ]
    assert (await listed(resource_type="roles", status="success"))["total"] >= 4
    page = await listed(limit=2, offset=1)
    assert (len(page["items"]), page["limit"], page["offset"]) == (2, 2, 1)
    everything = await listed(limit=500)  # every call adds its own row, first in the list
    assert page["items"] == everything["items"][2:4]
    assert page["total"] + 1 == everything["total"]
    future = (datetime.now(UTC) + timedelta(minutes=5)).isoformat()
    assert (await listed(date_from=future))["total"] == 0
    naive_past = (datetime.now(UTC) - timedelta(minutes=5)).replace(tzinfo=None).isoformat()
    assert (await listed(date_from=naive_past, date_to=future))["total"] == everything["total"] + 2


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/audit-log", {"limit": 0}),
        ("/audit-log", {"limit": 501}),
        ("/audit-log", {"offset": -1}),
        ("/audit-log", {"offset": 10**30}),
        ("/audit-log/export", {"limit": 50_001}),
        ("/audit-log", {"date_from": "yesterday"}),
    ],
)
async def test_bad_parameters_are_422(admin, path, params):
    assert (await admin.get(RBAC + path, params=params)).status_code == 422


async def test_export_is_a_csv_attachment(admin):
    await admin.post(f"{RBAC}/roles", json={"name": "One", "level": 1})
    response = await admin.get(f"{RBAC}/audit-log/export", params={"action": "roles"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    disposition = response.headers["content-disposition"]
    assert re.fullmatch(r'attachment; filename="audit_log_\d{8}_\d{6}\.csv"', disposition)
    table = list(csv.DictReader(io.StringIO(response.text)))
    assert [row["action"] for row in table] == ["roles:create"]
    assert table[0]["status"] == "success" and table[0]["user_id"] == "1"
    assert '"name": "One"' in table[0]["details"]


async def test_export_neutralises_formulas(admin, make_user, token_for, as_user):
    role = (
        await admin.post(f"{RBAC}/roles", json={"name": "R", "level": 1, "permissions": ["roles:read"]})
    ).json()
    user = await make_user(first_name="=HYPERLINK(1)")
    await admin.post(f"{RBAC}/assignments", json={"user_id": user.id, "role_id": role["id"]})
    async with as_user(token_for(user)) as http:
        for agent in ("=cmd|' /C calc'!A0", "+1+1", "-2-2", "@SUM(A1)"):
            await http.get(f"{RBAC}/roles", headers={"User-Agent": agent})
    await admin.delete(f"{RBAC}/roles/-7")
    text = (await admin.get(f"{RBAC}/audit-log/export")).text
    table = list(csv.DictReader(io.StringIO(text)))
    agents = {row["user_agent"] for row in table if row["action"] == "roles:read"}
    assert agents == {"'=cmd|' /C calc'!A0", "'+1+1", "'-2-2", "'@SUM(A1)"}
    (deleted,) = [row for row in table if row["action"] == "roles:delete"]
    assert deleted["resource_id"] == "'-7"
    assert {row["user_first_name"] for row in table if row["user_id"] == str(user.id)} == {"'=HYPERLINK(1)"}
    for row in table:
        assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in row.values())


def test_safe_cell():
    assert safe_cell("\tcmd") == "'\tcmd"
    assert safe_cell("\rcmd") == "'\rcmd"
    assert safe_cell("plain") == "plain"
    assert safe_cell(None) == ""
    assert safe_cell(-5) == -5  # numbers are data, not formulas
    assert safe_cell({"a": "=1"}) == '{"a": "=1"}'
