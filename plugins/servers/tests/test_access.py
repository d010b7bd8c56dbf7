"""With rbac: a role holding `servers:read` reads the cabinet admin servers but cannot change
them; `servers:edit` can; other roles get 403."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import BASE_PLUGINS

BASE = "/cabinet/admin/servers"


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return [*BASE_PLUGINS, "subsvc_rbac.plugin"]


async def test_read_permission_reads_but_does_not_change(permission_holder, make_server):
    server = await make_server("squad-1")
    async with await permission_holder(["servers:read"]) as reader:
        assert (await reader.get(BASE)).status_code == 200
        assert (await reader.get(f"{BASE}/{server['id']}")).status_code == 200
        assert (await reader.get(f"{BASE}/{server['id']}/stats")).status_code == 200
        for method, path in [("PUT", ""), ("POST", "/toggle"), ("POST", "/trial")]:
            response = await reader.request(method, f"{BASE}/{server['id']}{path}", json={})
            assert response.status_code == 403, path
            assert response.json() == {"detail": "Permission denied: Permission not granted by any role"}
        assert (await reader.post(f"{BASE}/sync")).status_code == 403


async def test_edit_permission_changes_and_other_roles_are_refused(permission_holder, make_server):
    server = await make_server("squad-1")
    async with await permission_holder(["servers:read", "servers:edit"]) as editor:
        response = await editor.post(f"{BASE}/{server['id']}/toggle")
        assert (response.status_code, response.json()["is_available"]) == (200, False)
    async with await permission_holder(["users:read"]) as other:
        response = await other.get(BASE)
        assert response.status_code == 403
        assert response.json() == {"detail": "Permission denied: Permission not granted by any role"}
