"""Cabinet Admin Panel against the fake panel: every route, the local server fields of
squads, and the system statistics' failure rules (behaviours §9)."""

from __future__ import annotations

import httpx2
import pytest
from subsvc_panel.testing import FakePanel

BASE = "/cabinet/admin/panel"


async def test_status_system_and_tolerated_parts(admin: httpx2.AsyncClient, fake_panel: FakePanel):
    fake_panel.add_users(2)
    fake_panel.add_node("A")
    fake_panel.add_node("B", isConnected=False)
    status = (await admin.get(f"{BASE}/status")).json()
    assert status["connection"]["status"] == "connected"
    body = (await admin.get(f"{BASE}/system")).json()
    assert body["system"]["total_users"] == 2
    assert body["system"]["nodes_online"] == 1
    assert body["system"]["total_nodes"] == 2
    assert body["last_updated"] is not None
    # one part failing is tolerated: the bandwidth figures become zero
    fake_panel.fail_with(500, path="/system/stats/bandwidth")
    tolerant = await admin.get(f"{BASE}/system")
    assert tolerant.status_code == 200
    assert tolerant.json()["traffic_periods"]["last_2_days"] == {
        "current": 0,
        "previous": 0,
        "difference": None,
    }
    assert tolerant.json()["system"]["total_users"] == 2
    # every part failing is a 502
    fake_panel.fail_with(500)
    failed = await admin.get(f"{BASE}/system")
    assert failed.status_code == 502
    assert failed.json() == {"detail": "VPN panel unavailable: Failed to get VPN panel statistics"}


async def test_system_when_the_panel_is_down_or_answers_garbage(
    admin: httpx2.AsyncClient, fake_panel: FakePanel
):
    fake_panel.garbage = True
    assert (await admin.get(f"{BASE}/system")).status_code == 502
    fake_panel.garbage = False
    await fake_panel.down()
    down = await admin.get(f"{BASE}/system")
    assert down.status_code == 502
    assert "detail" in down.json()
    await fake_panel.up()
    assert (await admin.get(f"{BASE}/system")).status_code == 200


async def test_nodes(admin: httpx2.AsyncClient, fake_panel: FakePanel):
    a = fake_panel.add_node("A", usersOnline=3)
    fake_panel.add_node("B", isConnected=False)
    fake_panel.add_node("C", isDisabled=True, isConnected=False)
    assert (await admin.get(f"{BASE}/nodes")).json()["total"] == 3
    overview = (await admin.get(f"{BASE}/nodes/overview")).json()
    assert {k: overview[k] for k in ("total", "online", "offline", "disabled", "total_users_online")} == {
        "total": 3,
        "online": 1,
        "offline": 1,
        "disabled": 1,
        "total_users_online": 3,
    }
    assert len((await admin.get(f"{BASE}/nodes/realtime")).json()) == 3
    assert (await admin.get(f"{BASE}/nodes/{a['uuid']}")).json()["name"] == "A"
    assert (await admin.get(f"{BASE}/nodes/nope")).status_code == 404
    action = await admin.post(f"{BASE}/nodes/{a['uuid']}/action", json={"action": "disable"})
    assert action.json() == {"success": True, "message": "Node disabled", "is_disabled": True}
    enabled = await admin.post(f"{BASE}/nodes/{a['uuid']}/action", json={"action": "enable"})
    assert enabled.json()["is_disabled"] is False
    assert (await admin.post(f"{BASE}/nodes/nope/action", json={"action": "restart"})).status_code == 404
    assert (await admin.post(f"{BASE}/nodes/restart-all")).json()["success"] is True
    assert (await admin.get(f"{BASE}/nodes/{a['uuid']}/statistics")).json()["node"]["uuid"] == a["uuid"]
    assert (await admin.get(f"{BASE}/nodes/{a['uuid']}/usage")).json() == {"items": []}


async def test_squads_with_local_info(
    admin: httpx2.AsyncClient, client: httpx2.AsyncClient, fake_panel: FakePanel
):
    created = await admin.post(f"{BASE}/squads", json={"name": "Finland"})
    assert created.status_code == 201
    squad_uuid = created.json()["data"]["uuid"]
    other = fake_panel.add_squad("Sweden")
    server = await client.post(
        "/servers", json={"squadUuid": squad_uuid, "displayName": "FI", "priceKopeks": 9900}
    )
    assert server.status_code == 201, server.text
    items = {s["name"]: s for s in (await admin.get(f"{BASE}/squads")).json()["items"]}
    assert items["Finland"]["is_synced"] is True
    assert items["Finland"]["display_name"] == "FI"
    assert items["Finland"]["price_kopeks"] == 9900
    assert items["Sweden"]["is_synced"] is False and items["Sweden"]["local_id"] is None
    detail = (await admin.get(f"{BASE}/squads/{squad_uuid}")).json()
    assert detail["active_subscriptions"] == 0 and detail["local_id"] == server.json()["id"]
    assert (await admin.patch(f"{BASE}/squads/{squad_uuid}", json={"name": ""})).status_code == 422
    assert (await admin.patch(f"{BASE}/squads/{squad_uuid}", json={"name": "FIN"})).json()["data"][
        "name"
    ] == "FIN"
    action = await admin.post(
        f"{BASE}/squads/{other['uuid']}/action", json={"action": "rename", "name": "SE"}
    )
    assert action.json() == {"success": True, "message": "Squad renamed", "data": None}
    preview = (await admin.get(f"{BASE}/squads/{squad_uuid}/migration-preview")).json()
    assert preview["users_to_migrate"] == 0
    migrated = await admin.post(
        f"{BASE}/squads/migrate", json={"source_uuid": squad_uuid, "target_uuid": other["uuid"]}
    )
    assert migrated.json()["success"] is True and migrated.json()["message"] == "Migrated 0 subscriptions"
    deleted = await admin.delete(f"{BASE}/squads/{other['uuid']}")
    assert deleted.json() == {"success": True, "message": "Squad deleted", "data": None}
    assert (await admin.delete(f"{BASE}/squads/{other['uuid']}")).json() == {"detail": "Squad not found"}


async def test_inbounds(admin: httpx2.AsyncClient, fake_panel: FakePanel):
    fake_panel.add_inbound("A")
    fake_panel.add_inbound("B")
    body = (await admin.get(f"{BASE}/inbounds")).json()
    assert body["total"] == 2 and {i["tag"] for i in body["items"]} == {"A", "B"}


@pytest.mark.parametrize("panel_configured", [False])
async def test_not_configured_is_503_and_status_says_so(
    admin: httpx2.AsyncClient, client: httpx2.AsyncClient, panel_configured: bool
):
    for path in ("/system", "/nodes", "/squads", "/inbounds", "/nodes/overview"):
        response = await admin.get(f"{BASE}{path}")
        assert response.status_code == 503, path
        assert response.json() == {"detail": "VPN panel is not configured"}
    assert (await client.get("/panel/system")).status_code == 503
    assert (await admin.get("/cabinet/admin/traffic")).status_code == 503
    status = (await admin.get(f"{BASE}/status")).json()
    assert status["is_configured"] is False
    assert status["configuration_error"] == "PANEL_API_URL is not configured"
    assert status["connection"]["status"] == "not_configured"


async def test_ordinary_user_gets_403(member: httpx2.AsyncClient, anon_client: httpx2.AsyncClient):
    for method, path in [
        ("GET", f"{BASE}/system"),
        ("POST", f"{BASE}/nodes/restart-all"),
        ("GET", "/cabinet/admin/traffic"),
    ]:
        assert (await member.request(method, path)).status_code == 403, path
    assert (await anon_client.get(f"{BASE}/system")).status_code == 401
    assert (await anon_client.get("/panel/system")).status_code == 401
