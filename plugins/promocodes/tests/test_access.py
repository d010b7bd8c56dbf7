"""Who may call what: every operation of the three tags is declared with its area, success
status and permission; an API key is no cabinet credential. (401 without credentials and 403
without the permission: tests/test_plugin_permissions.py.)"""

from __future__ import annotations

import re
from typing import Any

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


async def test_an_api_key_is_no_cabinet_credential(client):
    response = await client.get(ADMIN)
    assert response.status_code == 401
    response = await client.post("/cabinet/promocode/activate", json={"code": "X"})
    assert response.status_code == 401
