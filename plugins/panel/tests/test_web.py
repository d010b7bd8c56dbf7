"""Web API `panel` against the fake panel: every route, and what a failing panel answers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx2
from subsvc_panel.testing import FakePanel
from subsvc_subscriptions.models import Subscription

from subsvc.events import OutboxEvent


async def test_status_and_system(client: httpx2.AsyncClient, fake_panel: FakePanel):
    fake_panel.add_users(3, status="ACTIVE")
    fake_panel.add_node("Frankfurt")
    status = (await client.get("/panel/status")).json()
    assert status["is_configured"] is True
    assert status["connection"]["status"] == "connected"
    assert status["connection"]["system_info"]["total_users"] == 3
    system = await client.get("/panel/system")
    assert system.status_code == 200, system.text
    body = system.json()
    assert body["system"]["total_users"] == 3
    assert body["system"]["nodes_online"] == 1
    assert body["users_by_status"] == {"ACTIVE": 3}
    assert body["server_info"]["cpu_cores"] == 4
    assert body["bandwidth"] == {"realtime_download": 1000, "realtime_upload": 500, "realtime_total": 1500}
    assert body["traffic_periods"]["last_7_days"]["current"] == 3 * 1024**3 // 2
    assert body["traffic_periods"]["last_7_days"]["difference"] == "512 MiB"
    assert body["nodes_weekly"][0]["name"] == "Frankfurt"
    assert len(body["nodes_weekly"][0]["days_data"]) == 7


async def test_nodes(client: httpx2.AsyncClient, fake_panel: FakePanel):
    node = fake_panel.add_node("Amsterdam", countryCode="NL", usersOnline=4)
    listed = (await client.get("/panel/nodes")).json()
    assert listed["total"] == 1
    assert listed["items"][0]["name"] == "Amsterdam"
    assert listed["items"][0]["country_code"] == "NL"
    detail = await client.get(f"/panel/nodes/{node['uuid']}")
    assert detail.json()["users_online"] == 4
    assert (await client.get("/panel/nodes/unknown")).json() == {"detail": "Node not found"}
    realtime = (await client.get("/panel/nodes/realtime")).json()
    assert realtime[0]["nodeUuid"] == node["uuid"]
    action = await client.post(f"/panel/nodes/{node['uuid']}/actions", json={"action": "disable"})
    assert action.json() == {"success": True, "detail": "Node disabled"}
    assert fake_panel.nodes[node["uuid"]]["isDisabled"] is True
    bad = await client.post(f"/panel/nodes/{node['uuid']}/actions", json={"action": "explode"})
    assert bad.status_code == 422
    assert (await client.post("/panel/nodes/restart")).json()["success"] is True
    assert fake_panel.count("POST", "/nodes/actions/restart-all") == 1


async def test_node_statistics_and_usage(client: httpx2.AsyncClient, fake_panel: FakePanel):
    node = fake_panel.add_node("Paris")
    (user,) = fake_panel.add_users(1)
    today = datetime.now(UTC).date().isoformat()
    fake_panel.add_usage(user["uuid"], node["uuid"], today, 5000)
    stats = (await client.get(f"/panel/nodes/{node['uuid']}/statistics")).json()
    assert stats["node"]["uuid"] == node["uuid"]
    assert stats["realtime"]["nodeName"] == "Paris"
    mine = {
        "user_id": user["id"],
        "username": user["username"],
        "node_uuid": node["uuid"],
        "total_bytes": 5000,
    }
    assert stats["usage_history"] == [mine]
    usage = (await client.get(f"/panel/nodes/{node['uuid']}/usage")).json()
    assert usage["items"] == [mine]
    old = (datetime.now(UTC) - timedelta(days=30)).isoformat()
    older = (datetime.now(UTC) - timedelta(days=20)).isoformat()
    empty = await client.get(f"/panel/nodes/{node['uuid']}/usage", params={"start": old, "end": older})
    assert empty.json() == {"items": []}


async def test_squads(client: httpx2.AsyncClient, fake_panel: FakePanel):
    inbound = fake_panel.add_inbound("VLESS TCP")
    created = await client.post("/panel/squads", json={"name": "Germany", "inbound_uuids": [inbound["uuid"]]})
    assert created.status_code == 201, created.text
    squad = created.json()["data"]
    assert created.json()["success"] is True
    assert squad["inbounds_count"] == 1
    listed = (await client.get("/panel/squads")).json()
    assert listed["total"] == 1 and listed["items"][0]["name"] == "Germany"
    patched = await client.patch(f"/panel/squads/{squad['uuid']}", json={"name": "DE"})
    assert patched.json()["data"]["name"] == "DE"
    fake_panel.add_users(2)
    added = await client.post(f"/panel/squads/{squad['uuid']}/actions", json={"action": "add_all_users"})
    assert added.json() == {"success": True, "detail": "All users added to the squad", "data": None}
    assert (await client.get(f"/panel/squads/{squad['uuid']}")).json()["members_count"] == 2
    rename = await client.post(f"/panel/squads/{squad['uuid']}/actions", json={"action": "rename"})
    assert rename.status_code == 400
    assert rename.json() == {"detail": "Name is required for rename"}
    removed = await client.post(f"/panel/squads/{squad['uuid']}/actions", json={"action": "remove_all_users"})
    assert removed.json()["success"] is True
    assert (await client.get(f"/panel/squads/{squad['uuid']}")).json()["members_count"] == 0
    inbounds = await client.post(
        f"/panel/squads/{squad['uuid']}/actions", json={"action": "update_inbounds", "inbound_uuids": []}
    )
    assert inbounds.json()["detail"] == "Squad inbounds updated"
    deleted = await client.post(f"/panel/squads/{squad['uuid']}/actions", json={"action": "delete"})
    assert deleted.json()["detail"] == "Squad deleted"
    assert (await client.get(f"/panel/squads/{squad['uuid']}")).status_code == 404


async def test_inbounds(client: httpx2.AsyncClient, fake_panel: FakePanel):
    fake_panel.add_inbound("VLESS TCP")
    items = (await client.get("/panel/inbounds")).json()["items"]
    assert [i["tag"] for i in items] == ["VLESS TCP"]


async def test_user_traffic(client: httpx2.AsyncClient, fake_panel: FakePanel, make_user):
    user = await make_user(first_name="Ann")
    assert (await client.get(f"/panel/users/{user.messenger_id}/traffic")).json() == {
        "detail": "User not found in the VPN panel"
    }
    fake_panel.add_user(
        "user_ann", telegramId=user.messenger_id, usedTrafficBytes=2 * 1024**3, trafficLimitBytes=10 * 1024**3
    )
    traffic = (await client.get(f"/panel/users/{user.messenger_id}/traffic")).json()
    assert traffic["used_traffic_bytes"] == 2 * 1024**3
    assert traffic["used_traffic_gb"] == 2.0
    assert traffic["traffic_limit_gb"] == 10.0
    assert traffic["subscription_url"].startswith("https://sub.example.net/")
    assert (await client.get("/panel/users/123/traffic")).json() == {"detail": "User not found"}


async def test_migration(
    client: httpx2.AsyncClient, fake_panel: FakePanel, make_user, make_subscription, rows
):
    source, target = fake_panel.add_squad("Old"), fake_panel.add_squad("New")
    for n in range(3):
        user = await make_user(first_name=f"U{n}")
        await make_subscription(user, [source["uuid"]] if n < 2 else [target["uuid"]])
    preview = (await client.get(f"/panel/squads/{source['uuid']}/migration-preview")).json()
    assert preview == {
        "squad_uuid": source["uuid"],
        "squad_name": "Old",
        "current_users": 2,
        "max_users": None,
        "users_to_migrate": 2,
    }
    same = await client.post(
        "/panel/squads/migrate", json={"source_uuid": source["uuid"], "target_uuid": source["uuid"]}
    )
    assert same.status_code == 400
    unknown = await client.post(
        "/panel/squads/migrate", json={"source_uuid": source["uuid"], "target_uuid": "nope"}
    )
    assert unknown.json() == {"detail": "Squad not found"}
    moved = await client.post(
        "/panel/squads/migrate", json={"source_uuid": source["uuid"], "target_uuid": target["uuid"]}
    )
    assert moved.status_code == 200, moved.text
    assert moved.json()["data"]["updated"] == 2
    assert moved.json()["data"]["target_added"] == 2
    squads = sorted(tuple(r.connected_squads) for r in await rows(Subscription))
    assert squads == [(target["uuid"],)] * 3
    assert len(await rows(OutboxEvent, event_type="subscription.changed")) == 2


async def test_panel_down_garbage_and_500_are_502(client: httpx2.AsyncClient, fake_panel: FakePanel):
    fake_panel.garbage = True
    for path in ("/panel/system", "/panel/nodes", "/panel/squads", "/panel/inbounds"):
        response = await client.get(path)
        assert response.status_code == 502, path
        assert response.json()["detail"].startswith(("VPN panel unavailable", "Failed to get")), path
    fake_panel.garbage = False
    fake_panel.requests.clear()
    fake_panel.fail_with(500)
    assert (await client.get("/panel/nodes")).status_code == 502
    assert fake_panel.count("GET", "/nodes") == 3  # a read is retried twice
    created = await client.post("/panel/squads", json={"name": "X"})
    assert created.status_code == 502
    assert fake_panel.count("POST", "/internal-squads") == 1  # a creation is sent once
    fake_panel.fail_with(None)
    await fake_panel.down()
    assert (await client.get("/panel/system")).status_code == 502
    status = (await client.get("/panel/status")).json()
    assert status["is_configured"] is True and status["connection"]["status"] == "error"


async def test_node_usage_adds_up_days_and_puts_the_busiest_first(
    client: httpx2.AsyncClient, fake_panel: FakePanel
):
    node = fake_panel.add_node("Oslo")
    light, heavy = fake_panel.add_users(2)
    today = datetime.now(UTC).date()
    for days_ago, user, total in ((0, light, 100), (1, heavy, 700), (2, heavy, 300), (3, light, 50)):
        fake_panel.add_usage(
            user["uuid"], node["uuid"], (today - timedelta(days=days_ago)).isoformat(), total
        )
    items = (await client.get(f"/panel/nodes/{node['uuid']}/usage")).json()["items"]
    assert [(i["user_id"], i["username"], i["total_bytes"]) for i in items] == [
        (heavy["id"], heavy["username"], 1000),
        (light["id"], light["username"], 150),
    ]


async def test_node_fields_of_the_panel(client: httpx2.AsyncClient, admin, fake_panel: FakePanel):
    provider = {"uuid": "5b1c", "name": "Hetzner", "faviconLink": "https://hetzner.com/favicon.ico"}
    ips = [{"ip": "203.0.113.7", "status": "INBOUND"}]
    node = fake_panel.add_node("Rome", provider=provider, activePluginUuid="9f2e", ips=ips)
    web = (await client.get(f"/panel/nodes/{node['uuid']}")).json()
    assert web["versions"] == {"xray": "25.1.1", "node": "2.2.0"}
    assert web["system"]["info"]["cpus"] == 2 and web["active_plugin_uuid"] == "9f2e"
    assert (web["cpu_count"], web["cpu_model"], web["total_ram"]) == (2, "Fake CPU", "4 GiB")
    cabinet = (await admin.get(f"/cabinet/admin/panel/nodes/{node['uuid']}")).json()
    assert (cabinet["provider_name"], cabinet["provider_favicon"]) == ("Hetzner", provider["faviconLink"])
    assert cabinet["ips"] == ips
    overview = (await admin.get("/cabinet/admin/panel/nodes/overview")).json()
    assert overview["nodes"][0]["provider_name"] == "Hetzner"
    bare = fake_panel.add_node("Bare", system=None, versions=None, cpuCount=8, totalRam="16 GB")
    listed = {n["name"]: n for n in (await client.get("/panel/nodes")).json()["items"]}
    assert listed["Bare"]["system"] is None and listed["Bare"]["versions"] is None
    assert (listed["Bare"]["cpu_count"], listed["Bare"]["total_ram"]) == (8, "16 GB")
    assert listed["Bare"]["provider_name"] is None and listed["Bare"]["ips"] == []
    assert bare["uuid"] in {
        n["uuid"] for n in (await admin.get("/cabinet/admin/panel/nodes")).json()["items"]
    }
