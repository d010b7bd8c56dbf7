"""With rbac: a role holding `panel:read` reads the panel but cannot act on it, `panel:manage`
can; `traffic:read` reads the traffic but does not export it; roles without them get 403."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import pytest
from subsvc_panel.testing import FakePanel

from .conftest import BASE_PLUGINS

BASE = "/cabinet/admin/panel"
RBAC = "/cabinet/admin/rbac"


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return [*BASE_PLUGINS, "subsvc_rbac.plugin"]


async def test_read_reads_and_manage_acts(permission_holder: Any, fake_panel: FakePanel):
    node = fake_panel.add_node("A")
    async with await permission_holder(["panel:read"]) as reader:
        for path in ("/system", "/nodes", f"/nodes/{node['uuid']}", "/squads", "/inbounds", "/status"):
            assert (await reader.get(f"{BASE}{path}")).status_code == 200, path
        refused = await reader.post(f"{BASE}/nodes/{node['uuid']}/action", json={"action": "disable"})
        assert refused.status_code == 403
        assert (await reader.post(f"{BASE}/squads", json={"name": "X"})).status_code == 403
        assert (await reader.get("/cabinet/admin/traffic")).status_code == 403
    assert fake_panel.nodes[node["uuid"]]["isDisabled"] is False
    async with await permission_holder(["panel:read", "panel:manage"]) as manager:
        done = await manager.post(f"{BASE}/nodes/{node['uuid']}/action", json={"action": "disable"})
        assert done.status_code == 200
    assert fake_panel.nodes[node["uuid"]]["isDisabled"] is True


async def test_traffic_permissions(permission_holder: Any):
    async with await permission_holder(["traffic:read"]) as reader:
        assert (await reader.get("/cabinet/admin/traffic")).status_code == 200
        assert (await reader.post("/cabinet/admin/traffic/export-csv", json={})).status_code == 403
        assert (await reader.get(f"{BASE}/system")).status_code == 403
    async with await permission_holder(["servers:read"]) as other:
        assert (await other.get("/cabinet/admin/traffic/enrichment")).status_code == 403


async def test_actions_are_audited(permission_holder: Any, admin: httpx2.AsyncClient, fake_panel: FakePanel):
    node = fake_panel.add_node("A")
    async with await permission_holder(["panel:*"]) as manager:
        assert (
            await manager.post(f"{BASE}/nodes/{node['uuid']}/action", json={"action": "restart"})
        ).status_code == 200

    async def audited() -> list[dict[str, Any]]:
        entries = (await admin.get(f"{RBAC}/audit-log", params={"action": "panel:manage"})).json()
        return entries.get("items", entries.get("logs", []))

    for _ in range(100):
        found = await audited()
        if found:
            break
        await asyncio.sleep(0.05)
    assert found and found[0]["request_path"] == f"{BASE}/nodes/{node['uuid']}/action"
