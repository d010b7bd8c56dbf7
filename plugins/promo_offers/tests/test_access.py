"""Who may call what: every operation declares the reference's permission (401 without
credentials and 403 without the permission: tests/test_plugin_permissions.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest

ADMIN = "/cabinet/admin/promo-offers"
WEB = "/promo-offers"
TERMS = {"notification_type": "n", "valid_hours": 1, "user_id": 2}

# (method, path, body, permission)
ADMIN_OPERATIONS: list[tuple[str, str, Any, str]] = [
    ("GET", "", None, "promo_offers:read"),
    ("POST", "/broadcast", TERMS, "promo_offers:send"),
    ("GET", "/broadcasts/{id}", None, "promo_offers:read"),
    ("GET", "/logs", None, "promo_offers:read"),
    ("GET", "/segments", None, "promo_offers:read"),
    ("GET", "/templates", None, "promo_offers:read"),
    ("GET", "/templates/{id}", None, "promo_offers:read"),
    ("PATCH", "/templates/{id}", {"name": "x"}, "promo_offers:edit"),
]
WEB_OPERATIONS: list[tuple[str, str, Any, str]] = [
    ("GET", "", None, "promo_offers:read"),
    ("POST", "", TERMS, "promo_offers:create"),
    ("POST", "/broadcast", TERMS, "promo_offers:send"),
    ("GET", "/logs", None, "promo_offers:read"),
    ("GET", "/templates", None, "promo_offers:read"),
    ("GET", "/templates/{id}", None, "promo_offers:read"),
    ("PATCH", "/templates/{id}", {"name": "x"}, "promo_offers:edit"),
    ("GET", "/{id}", None, "promo_offers:read"),
]


def _normalise(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


@pytest.mark.parametrize(
    ("base", "operations", "tag"),
    [(ADMIN, ADMIN_OPERATIONS, "Admin Promo Offers"), (WEB, WEB_OPERATIONS, "promo-offers")],
)
def test_every_operation_is_listed_with_its_permission(app, base, operations, tag):
    ours = {(e.method, _normalise(e.path)): e.permission for e in app.state.endpoints if e.tag == tag}
    assert ours == {
        (method, _normalise(base + path)): permission for method, path, _, permission in operations
    }


def test_the_permissions_are_registered(app):
    assert app.state.permissions["promo_offers"] == ["read", "create", "edit", "send"]


@pytest.mark.parametrize("path", ["/templates/abc", "/broadcasts/abc"])
async def test_a_path_id_that_is_not_a_number_is_422(admin, path):
    response = await admin.get(ADMIN + path)
    assert response.status_code == 422
    assert response.json()["detail"][0]["type"] == "int_parsing"
