"""Every operation of the tag, declared with the permission of the reference; 404 for an
unknown user, 422 for a path id that is not a number. (401 without a JWT and 403 without the
permission: tests/test_plugin_permissions.py.)"""

from __future__ import annotations

from typing import Any

import pytest

BASE = "/cabinet/admin/users"

# (method, path with {id}, body, permission)
OPERATIONS: list[tuple[str, str, Any, str]] = [
    ("GET", "", None, "users:read"),
    ("GET", "/stats", None, "users:read"),
    ("GET", "/by-messenger/{id}", None, "users:read"),
    ("GET", "/{id}", None, "users:read"),
    ("DELETE", "/{id}", {"soft_delete": True}, "users:delete"),
    ("GET", "/{id}/available-tariffs", None, "users:read"),
    ("POST", "/{id}/balance", {"amount_kopeks": 100}, "users:balance"),
    ("POST", "/{id}/block", None, "users:block"),
    ("DELETE", "/{id}/devices", None, "users:edit"),
    ("GET", "/{id}/devices", None, "users:read"),
    ("DELETE", "/{id}/devices/hw-1", None, "users:edit"),
    ("POST", "/{id}/disable", {}, "users:block"),
    ("DELETE", "/{id}/full", {}, "users:delete"),
    ("GET", "/{id}/gifts", None, "users:read"),
    ("GET", "/{id}/node-usage", None, "users:read"),
    ("GET", "/{id}/panel-info", None, "users:read"),
    ("POST", "/{id}/promo-group", {"promo_group_id": None}, "users:promo_group"),
    ("POST", "/{id}/referral-commission", {"commission_percent": 5}, "users:referral"),
    ("GET", "/{id}/referrals", None, "users:read"),
    ("POST", "/{id}/reset-subscription", {}, "users:subscription"),
    ("POST", "/{id}/reset-trial", {}, "users:subscription"),
    ("POST", "/{id}/restrictions", {"restriction_topup": True}, "users:edit"),
    ("POST", "/{id}/status", {"status": "blocked"}, "users:edit"),
    ("POST", "/{id}/subscription", {"action": "extend", "days": 3}, "users:subscription"),
    ("POST", "/{id}/sync/from-panel", {}, "users:sync"),
    ("GET", "/{id}/sync/status", None, "users:sync"),
    ("POST", "/{id}/sync/to-panel", {}, "users:sync"),
    ("GET", "/{id}/transactions", None, "users:read"),
    ("POST", "/{id}/unblock", None, "users:block"),
    # release 4.1.0
    ("GET", "/{id}/activity", None, "users:read"),
    ("POST", "/{id}/assign-referrer", {"referrer_id": 7}, "users:referral"),
    ("DELETE", "/{id}/referrer", None, "users:referral"),
    ("DELETE", "/{id}/referrals/7", None, "users:referral"),
    ("PATCH", "/{id}/devices/hw-1/name", {"name": "Phone"}, "users:edit"),
    ("POST", "/{id}/send-message", {"text": "Hello"}, "users:edit"),
    ("GET", "/{id}/subscription-request-history", None, "users:read"),
    ("DELETE", "/{id}/subscriptions/7", None, "users:subscription"),
    ("POST", "/{id}/subscriptions/7/cancel-sbp-recurring", None, "users:subscription"),
    ("GET", "/by-panel/abc", None, "users:read"),
]
WITH_ID = [op for op in OPERATIONS if "{id}" in op[1]]


def _ids(op: tuple[str, str, Any, str]) -> str:
    return f"{op[0]} {op[1] or '/'}"


def test_every_operation_of_the_tag_is_listed_with_its_permission(app):
    ours = {
        (endpoint.method, _normalise(endpoint.path)): endpoint.permission
        for endpoint in app.state.endpoints
        if endpoint.tag == "Cabinet Admin Users"
    }
    assert ours == {
        (method, _normalise(BASE + path)): permission for method, path, _, permission in OPERATIONS
    }
    assert len(OPERATIONS) == 39


def _normalise(path: str) -> str:
    import re

    path = re.sub(r"\{[^}]+\}", "{}", path).replace("/hw-1", "/{}").replace("/by-panel/abc", "/by-panel/{}")
    return re.sub(r"/7(?=/|$)", "/{}", path)


@pytest.mark.parametrize("op", [op for op in WITH_ID], ids=_ids)
async def test_an_unknown_user_is_404(admin, make_user, op):
    await make_user()  # someone exists; the id below is not theirs
    method, path, body, _ = op
    response = await admin.request(method, BASE + path.replace("{id}", "999999"), json=body)
    assert response.status_code == 404
    assert response.json() == {"detail": "User not found"}


@pytest.mark.parametrize(
    ("user_id", "status"), [("0", 404), ("-5", 404), ("2147483648", 422), ("99999999999999999999", 422)]
)
async def test_ids_no_row_can_have_are_404_or_beyond_the_column_422(admin, user_id, status):
    response = await admin.get(f"{BASE}/{user_id}")
    assert response.status_code == status


@pytest.mark.parametrize("op", [op for op in WITH_ID if "by-messenger" not in op[1]], ids=_ids)
async def test_a_path_id_that_is_not_a_number_is_422(admin, op):
    method, path, body, _ = op
    response = await admin.request(method, BASE + path.replace("{id}", "abc"), json=body)
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error["loc"] == ["path", "user_id"]
    assert error["type"] == "int_parsing"
