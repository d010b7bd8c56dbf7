"""Every operation of the tag, declared with the reference's permission; 404 for an unknown
tariff, 422 for a path id that is not a number; with the rbac plugin a role's permissions
decide. (401 without a JWT and 403 without the permission: tests/test_plugin_permissions.py.)"""

from __future__ import annotations

import re
from typing import Any

import pytest
from subsvc_rbac.testing import role_holder
from subsvc_users.schemas import UserCreateRequest
from subsvc_users.service import create_user

BASE = "/cabinet/admin/tariffs"

# (method, path with {id}, body, permission)
OPERATIONS: list[tuple[str, str, Any, str]] = [
    ("GET", "", None, "tariffs:read"),
    ("POST", "", {"name": "Basic"}, "tariffs:create"),
    ("GET", "/available-servers", None, "tariffs:read"),
    ("GET", "/available-external-squads", None, "tariffs:read"),
    ("PUT", "/order", {"tariff_ids": [1]}, "tariffs:edit"),
    ("GET", "/{id}", None, "tariffs:read"),
    ("PUT", "/{id}", {"name": "Renamed"}, "tariffs:edit"),
    ("DELETE", "/{id}", None, "tariffs:delete"),
    ("POST", "/{id}/toggle", None, "tariffs:edit"),
    ("POST", "/{id}/trial", None, "tariffs:edit"),
    ("GET", "/{id}/stats", None, "tariffs:read"),
    ("POST", "/{id}/sync-squads", None, "tariffs:edit"),
]
WITH_ID = [op for op in OPERATIONS if "{id}" in op[1]]


def _ids(op: tuple[str, str, Any, str]) -> str:
    return f"{op[0]} {op[1] or '/'}"


def _normalise(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


def test_every_operation_of_the_tag_is_listed_with_its_permission(app):
    ours = {
        (e.method, _normalise(e.path)): e.permission
        for e in app.state.endpoints
        if e.tag == "Cabinet Admin Tariffs"
    }
    assert ours == {
        (method, _normalise(BASE + path)): permission for method, path, _, permission in OPERATIONS
    }
    assert len(OPERATIONS) == 12


@pytest.mark.parametrize("op", [op for op in WITH_ID if op[1] != "/{id}/sync-squads"], ids=_ids)
async def test_an_unknown_tariff_is_404(admin, make_tariff, op):
    await make_tariff()  # a tariff exists; the id below is not its
    method, path, body, _ = op
    response = await admin.request(method, BASE + path.replace("{id}", "999999"), json=body)
    assert response.status_code == 404
    assert response.json() == {"detail": "Tariff not found"}


async def test_sync_of_an_unknown_tariff_is_404_before_the_panel_is_asked(admin):
    response = await admin.post(f"{BASE}/999999/sync-squads")
    assert response.status_code == 404
    assert response.json() == {"detail": "Tariff not found"}


@pytest.mark.parametrize(
    ("tariff_id", "status"), [("0", 404), ("-5", 404), ("2147483648", 422), ("99999999999999999999", 422)]
)
async def test_ids_no_row_can_have_are_404_or_beyond_the_column_422(admin, tariff_id, status):
    response = await admin.get(f"{BASE}/{tariff_id}")
    assert response.status_code == status


@pytest.mark.parametrize("op", WITH_ID, ids=_ids)
async def test_a_path_id_that_is_not_a_number_is_422(admin, op):
    method, path, body, _ = op
    response = await admin.request(method, BASE + path.replace("{id}", "abc"), json=body)
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error["loc"] == ["path", "tariff_id"]
    assert error["type"] == "int_parsing"


class TestWithRbac:
    """With the rbac plugin, a role holding a tariff permission may use exactly that."""

    @pytest.fixture
    def subsvc_plugins(self, subsvc_plugins: list[Any]) -> list[Any]:
        return [*subsvc_plugins, "subsvc_rbac.plugin"]

    @pytest.fixture
    async def reader(self, app, db, admin):
        async with db.session() as session:
            user = await create_user(app, session, UserCreateRequest(messenger_id=700_123_456))
            await session.commit()
        http = await role_holder(app, admin, user.id, ["tariffs:read"], messenger_id=user.messenger_id)
        async with http:
            yield http

    async def test_a_role_with_read_reads_but_does_not_change(self, reader, make_tariff):
        tariff = await make_tariff(name="Basic")
        listed = await reader.get(BASE)
        assert listed.status_code == 200
        assert [t["name"] for t in listed.json()["tariffs"]] == ["Basic"]
        assert (await reader.get(f"{BASE}/{tariff['id']}/stats")).status_code == 200
        refused = await reader.post(f"{BASE}/{tariff['id']}/toggle")
        assert refused.status_code == 403
        assert refused.json() == {"detail": "Permission denied: Permission not granted by any role"}
        created = await reader.post(BASE, json={"name": "Sneaky"})
        assert created.status_code == 403
