"""4.1.0's new Cabinet Admin Panel operations against the fake panel: health, recap, devices
statistics, top consumers, subscription requests by app, and the node geo-check job."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx2
from subsvc_panel.testing import FakePanel

BASE = "/cabinet/admin/panel"


async def test_health_adds_up_the_panels_processes(admin: httpx2.AsyncClient, fake_panel: FakePanel):
    fake_panel.runtime = [
        {"rss": 100, "heapUsed": 40, "heapTotal": 60, "eventLoopDelayMs": 1.5, "eventLoopP99Ms": 9.0,
         "uptime": 50, "instanceId": 0},
        {"rss": 300, "heapUsed": 10, "heapTotal": 20, "eventLoopDelayMs": 4.0, "eventLoopP99Ms": 3.5,
         "uptime": 70, "instanceId": 1},
    ]  # fmt: skip
    response = await admin.get(f"{BASE}/health")
    assert response.status_code == 200, response.text
    assert response.json() == {
        "instances": 2,
        "rss_bytes": 400,
        "heap_used_bytes": 50,
        "heap_total_bytes": 80,
        "event_loop_delay_ms": 4.0,
        "event_loop_p99_ms": 9.0,
        "uptime_seconds": 70,
        "instance_id": "0",
    }


async def test_recap_counts_users_nodes_traffic_and_countries(
    admin: httpx2.AsyncClient, fake_panel: FakePanel
):
    fake_panel.add_node("A", countryCode="DE")
    node = fake_panel.add_node("B", countryCode="NL")
    fake_panel.add_node("C", countryCode="NL")
    one, _ = fake_panel.add_users(2, lifetimeUsedTrafficBytes=1000)
    fake_panel.add_usage(one["uuid"], node["uuid"], datetime.now(UTC).date().isoformat(), 700)
    body = (await admin.get(f"{BASE}/recap")).json()
    assert (body["version"], body["init_date"]) == ("2.2.0", "2025-01-15T00:00:00.000Z")
    assert body["total"] == {
        "users": 2,
        "nodes": 3,
        "traffic_bytes": 2000,
        "nodes_ram_bytes": 3 * 4 * 1024**3,
        "nodes_cpu_cores": 6,
        "distinct_countries": 2,
    }
    assert body["this_month"] == {"users": 2, "traffic_bytes": 700}


async def test_devices_stats(admin: httpx2.AsyncClient, fake_panel: FakePanel):
    ann, bob = fake_panel.add_users(2)
    fake_panel.add_device(ann["uuid"], "h1", platform="Android", userAgent="Happ/1.2")
    fake_panel.add_device(ann["uuid"], "h2", platform="iOS", userAgent="v2rayTun/3")
    fake_panel.add_device(bob["uuid"], "h3", platform="Android", userAgent="Happ/1.0")
    body = (await admin.get(f"{BASE}/devices-stats")).json()
    assert body["by_platform"] == [{"platform": "Android", "count": 2}, {"platform": "iOS", "count": 1}]
    assert body["by_app"] == [{"app": "Happ", "count": 2}, {"app": "v2rayTun", "count": 1}]
    assert body["top_users"][0] == {"username": ann["username"], "devices_count": 2}
    assert (body["total_unique_devices"], body["total_hwid_devices"]) == (3, 3)
    assert body["average_devices_per_user"] == 1.5


async def test_top_consumers_add_up_every_node(admin: httpx2.AsyncClient, fake_panel: FakePanel):
    de, nl = fake_panel.add_node("DE"), fake_panel.add_node("NL")
    ann, bob, cid = fake_panel.add_users(3)
    today = datetime.now(UTC).date()
    fake_panel.add_usage(ann["uuid"], de["uuid"], today.isoformat(), 500)
    fake_panel.add_usage(ann["uuid"], nl["uuid"], today.isoformat(), 600)
    fake_panel.add_usage(bob["uuid"], nl["uuid"], today.isoformat(), 900)
    fake_panel.add_usage(cid["uuid"], de["uuid"], (today - timedelta(days=20)).isoformat(), 5000)
    body = (await admin.get(f"{BASE}/top-consumers")).json()
    assert body == {
        "period_days": 7,
        "users": [
            {"username": ann["username"], "total_bytes": 1100},
            {"username": bob["username"], "total_bytes": 900},
        ],
    }
    month = (await admin.get(f"{BASE}/top-consumers", params={"days": 30, "limit": 1})).json()
    assert month["users"] == [{"username": cid["username"], "total_bytes": 5000}]
    for bad in ({"days": 0}, {"days": 91}, {"limit": 51}):
        assert (await admin.get(f"{BASE}/top-consumers", params=bad)).status_code == 422


async def test_subscription_requests_by_app(admin: httpx2.AsyncClient, fake_panel: FakePanel):
    (user,) = fake_panel.add_users(1)
    for agent in ("Happ/1.0", "Happ/2.0", "Streisand 1.6", "clash-verge/v2"):
        fake_panel.add_subscription_request(user["uuid"], agent)
    body = (await admin.get(f"{BASE}/subscription-requests")).json()
    assert body == {
        "by_app": [
            {"app": "Happ", "count": 2},
            {"app": "Streisand", "count": 1},
            {"app": "clash-verge", "count": 1},
        ]
    }


async def test_geocheck_is_a_job_polled_until_done(admin: httpx2.AsyncClient, fake_panel: FakePanel):
    node = fake_panel.add_node("Tokyo")
    started = await admin.post(f"{BASE}/nodes/{node['uuid']}/geocheck", json={"ip": "203.0.113.9"})
    assert started.status_code == 200, started.text
    job_id = started.json()["job_id"]
    assert fake_panel.geochecks[job_id]["body"] == {"ip": "203.0.113.9"}
    running = (await admin.get(f"{BASE}/geocheck/{job_id}")).json()
    assert running == {"job_id": job_id, "is_completed": False, "is_failed": False, "result": None}
    done = (await admin.get(f"{BASE}/geocheck/{job_id}")).json()
    assert (done["is_completed"], done["is_failed"]) == (True, False)
    assert done["result"]["success"] is True and done["result"]["node_uuid"] == node["uuid"]
    assert done["result"]["image"] == {
        "format": "png",
        "media_type": "image/png",
        "encoding": "base64",
        "data": "iVBORw0KGgo=",
    }
    assert done["result"]["raw_report"]["country"] == "DE"


async def test_a_failed_geocheck_and_unknown_ids(admin: httpx2.AsyncClient, fake_panel: FakePanel):
    fake_panel.geocheck_polls = 0
    node = fake_panel.add_node("Mute", geocheckFails=True)
    job_id = (await admin.post(f"{BASE}/nodes/{node['uuid']}/geocheck", json={})).json()["job_id"]
    failed = (await admin.get(f"{BASE}/geocheck/{job_id}")).json()
    assert (failed["is_completed"], failed["is_failed"]) == (False, True)
    assert failed["result"]["message"] == "Node did not answer" and failed["result"]["image"] is None
    unknown_node = await admin.post(f"{BASE}/nodes/nope/geocheck", json={})
    assert unknown_node.status_code == 404 and unknown_node.json() == {"detail": "Node not found"}
    unknown_job = await admin.get(f"{BASE}/geocheck/nope")
    assert unknown_job.status_code == 404 and unknown_job.json() == {"detail": "Geocheck job not found"}


async def test_members_are_refused_and_a_down_panel_is_502(
    admin: httpx2.AsyncClient, member: httpx2.AsyncClient, fake_panel: FakePanel
):
    for path in ("health", "recap", "devices-stats", "top-consumers", "subscription-requests"):
        assert (await member.get(f"{BASE}/{path}")).status_code == 403
    await fake_panel.down()
    for path in ("health", "recap", "devices-stats", "top-consumers", "subscription-requests"):
        assert (await admin.get(f"{BASE}/{path}")).status_code == 502, path


async def test_restart_all_may_force(
    admin: httpx2.AsyncClient, client: httpx2.AsyncClient, fake_panel: FakePanel
):
    assert (await admin.post(f"{BASE}/nodes/restart-all")).json()["success"] is True
    forced = await admin.post(f"{BASE}/nodes/restart-all", json={"force_restart": True})
    assert forced.status_code == 200 and forced.json()["success"] is True
    assert (await client.post("/panel/nodes/restart", json={"force_restart": True})).status_code == 200
    assert fake_panel.restarts == [False, True, True]
    assert (await admin.post(f"{BASE}/nodes/restart-all", json={"force_restart": "x"})).status_code == 422
