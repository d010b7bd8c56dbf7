"""Who may call what: every operation of the three tags is declared with its area, success
status and permission; the admin routes answer 401 without a JWT and 403 to a user without
the permission (changing nothing); the cabinet routes want a JWT, the Web API its key."""

from __future__ import annotations

import re
from typing import Any

import pytest
from subsvc_promocodes.models import PromoCode

ADMIN = "/cabinet/admin/promocodes"
BODY = {"code": "NEW", "type": "balance", "balance_bonus_kopeks": 100}

# (tag, method, path, body, permission, success status)
OPERATIONS: list[tuple[str, str, str, Any, str | None, int]] = [
    ("promo-codes", "GET", "/promo-codes", None, "promocodes:read", 200),
    ("promo-codes", "POST", "/promo-codes", BODY, "promocodes:create", 201),
    ("promo-codes", "GET", "/promo-codes/{id}", None, "promocodes:read", 200),
    ("promo-codes", "PATCH", "/promo-codes/{id}", {"is_active": False}, "promocodes:edit", 200),
    ("promo-codes", "DELETE", "/promo-codes/{id}", None, "promocodes:delete", 204),
    ("Admin Promocodes", "GET", ADMIN, None, "promocodes:read", 200),
    ("Admin Promocodes", "POST", ADMIN, BODY, "promocodes:create", 201),
    ("Admin Promocodes", "GET", ADMIN + "/{id}", None, "promocodes:read", 200),
    ("Admin Promocodes", "PATCH", ADMIN + "/{id}", {"is_active": False}, "promocodes:edit", 200),
    ("Admin Promocodes", "DELETE", ADMIN + "/{id}", None, "promocodes:delete", 204),
    ("Admin Promocodes", "POST", ADMIN + "/deactivate-discount/{id}", None, "promocodes:edit", 200),
    ("Cabinet Promocode", "POST", "/cabinet/promocode/activate", {"code": "X"}, None, 200),
    ("Cabinet Promocode", "POST", "/cabinet/promocode/deactivate-discount", None, None, 200),
]
AREAS = {"promo-codes": "web", "Admin Promocodes": "cabinet-admin", "Cabinet Promocode": "cabinet"}
ADMIN_OPERATIONS = [op for op in OPERATIONS if op[0] == "Admin Promocodes"]


def _ids(op: tuple[Any, ...]) -> str:
    return f"{op[1]} {op[2]}"


def _normalise(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


def test_every_operation_of_the_three_tags_is_declared_as_listed(app):
    declared = {(e.tag, e.method, _normalise(e.path)): e for e in app.state.endpoints if e.tag in AREAS}
    listed = {(tag, method, _normalise(path)): op for tag, method, path, *op in OPERATIONS}
    assert set(declared) == set(listed)
    for key, (_, permission, status) in listed.items():
        endpoint = declared[key]
        assert (endpoint.area, endpoint.permission, endpoint.status_code) == (
            AREAS[key[0]],
            permission,
            status,
        )
    assert sorted(app.state.permissions["promocodes"]) == sorted(
        ["read", "create", "edit", "delete", "stats"]
    )


@pytest.mark.parametrize("op", [op for op in OPERATIONS if op[0] != "promo-codes"], ids=_ids)
async def test_cabinet_routes_without_a_token_are_401(anon_client, op):
    _, method, path, body, _, _ = op
    response = await anon_client.request(method, path.replace("{id}", "1"), json=body)
    assert response.status_code == 401
    assert response.json() == {"detail": "Authentication required"}


@pytest.mark.parametrize("op", [op for op in OPERATIONS if op[0] == "promo-codes"], ids=_ids)
async def test_web_routes_without_a_key_are_401(anon_client, op):
    _, method, path, body, _, _ = op
    response = await anon_client.request(method, path.replace("{id}", "1"), json=body)
    assert response.status_code == 401


@pytest.mark.parametrize("op", ADMIN_OPERATIONS, ids=_ids)
async def test_an_ordinary_user_is_403_and_nothing_changes(member, make_code, make_user, rows, op):
    code = await make_code(code="KEEP")
    target = code["id"] if "deactivate" not in op[2] else (await make_user())["id"]
    _, method, path, body, _, _ = op
    response = await member.request(method, path.replace("{id}", str(target)), json=body)
    assert response.status_code == 403
    assert response.json() == {"detail": "Insufficient permissions"}
    (row,) = await rows(PromoCode)
    assert (row.code, row.is_active) == ("KEEP", True)


async def test_an_api_key_is_no_cabinet_credential(client):
    response = await client.get(ADMIN)
    assert response.status_code == 401
    response = await client.post("/cabinet/promocode/activate", json={"code": "X"})
    assert response.status_code == 401
