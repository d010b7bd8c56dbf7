"""The ports earlier plugins declared, answered by this plugin over the fake panel: the
servers' sync, the tariffs' external squads and squad sync, the administrators' panel
operations on one user."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2
import pytest
from subsvc_panel.testing import FakePanel

from .conftest import BASE_PLUGINS

USERS = "/cabinet/admin/users"


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return [*BASE_PLUGINS, "tariffs", "cabinet_admin_users"]


async def test_servers_sync_reads_the_panel_squads(admin: httpx2.AsyncClient, fake_panel: FakePanel):
    fake_panel.add_squad("Germany", uuid="squad-de")
    fake_panel.add_squad("Finland", uuid="squad-fi")
    synced = await admin.post("/cabinet/admin/servers/sync")
    assert synced.status_code == 200, synced.text
    assert synced.json()["created"] == 2
    servers = (await admin.get("/cabinet/admin/servers")).json()["servers"]
    assert sorted(s["squad_uuid"] for s in servers) == ["squad-de", "squad-fi"]
    fake_panel.fail_with(500)
    failed = await admin.post("/cabinet/admin/servers/sync")
    assert failed.status_code == 502
    assert failed.json()["detail"].startswith("VPN panel error: HTTP 500")


async def test_tariffs_external_squads_and_squad_sync(
    admin: httpx2.AsyncClient, fake_panel: FakePanel, make_user, make_subscription
):
    external = fake_panel.add_external_squad("Premium")
    fake_panel.add_squad("Germany", uuid="squad-de")
    assert (
        await admin.post("/cabinet/admin/servers/sync")
    ).status_code == 200  # the tariff sells this server
    listed = await admin.get("/cabinet/admin/tariffs/available-external-squads")
    assert listed.json() == [{"uuid": external["uuid"], "name": "Premium", "members_count": 0}]
    tariff = await admin.post(
        "/cabinet/admin/tariffs",
        json={"name": "Pro", "allowed_squads": ["squad-de"], "external_squad_uuid": external["uuid"]},
    )
    assert tariff.status_code in (200, 201), tariff.text
    tariff_id = tariff.json()["id"]
    with_account = await make_user(first_name="Ann")
    without_account = await make_user(first_name="Bob")
    await make_subscription(with_account, [], tariff_id=tariff_id)
    await make_subscription(without_account, [], tariff_id=tariff_id)
    account = fake_panel.add_user("user_ann", telegramId=with_account.messenger_id)
    synced = await admin.post(f"/cabinet/admin/tariffs/{tariff_id}/sync-squads")
    assert synced.status_code == 200, synced.text
    assert (synced.json()["updated_count"], synced.json()["skipped_count"]) == (1, 1)
    assert fake_panel.users[account["uuid"]]["activeInternalSquads"] == [
        {"uuid": "squad-de", "name": "Germany"}
    ]
    assert fake_panel.users[account["uuid"]]["externalSquadUuid"] == external["uuid"]


async def test_admin_user_panel_operations(
    admin: httpx2.AsyncClient, fake_panel: FakePanel, make_user, make_subscription
):
    fake_panel.add_squad("Germany", uuid="squad-de")
    node = fake_panel.add_node("Frankfurt")
    user = await make_user(first_name="Ann")
    await make_subscription(user, ["squad-de"], traffic_limit_gb=20, device_limit=2)
    assert (await admin.get(f"{USERS}/{user.id}/panel-info")).json()["found"] is False
    pushed = await admin.post(f"{USERS}/{user.id}/sync/to-panel", json={})
    assert pushed.status_code == 200, pushed.text
    assert pushed.json()["action"] == "created"
    (account,) = fake_panel.users_of_messenger_id(user.messenger_id)
    assert account["username"] == f"user_{user.messenger_id}"
    assert account["trafficLimitBytes"] == 20 * 1024**3 and account["hwidDeviceLimit"] == 2
    assert [s["uuid"] for s in account["activeInternalSquads"]] == ["squad-de"]
    again = await admin.post(f"{USERS}/{user.id}/sync/to-panel", json={})
    assert again.json()["action"] == "no_changes"
    info = (await admin.get(f"{USERS}/{user.id}/panel-info")).json()
    assert info["found"] is True and info["subscription_url"] == account["subscriptionUrl"]
    fake_panel.add_device(account["uuid"], "hw-1", platform="iOS")
    devices = (await admin.get(f"{USERS}/{user.id}/devices")).json()
    assert [d["hwid"] for d in devices["devices"]] == ["hw-1"]
    deleted = await admin.delete(f"{USERS}/{user.id}/devices/hw-1")
    assert deleted.status_code == 200, deleted.text
    assert fake_panel.devices[account["uuid"]] == []
    yesterday = (datetime.now(UTC) - timedelta(days=1)).date().isoformat()
    fake_panel.add_usage(account["uuid"], node["uuid"], yesterday, 7000)
    usage = await admin.get(f"{USERS}/{user.id}/node-usage")
    assert usage.status_code == 200, usage.text
    assert usage.json()["items"][0]["total_bytes"] == 7000
    fake_panel.fail_with(500)
    assert (await admin.get(f"{USERS}/{user.id}/panel-info")).status_code == 502


async def test_unified_health_says_the_panel_is_configured(anon_client: httpx2.AsyncClient):
    panel = (await anon_client.get("/health/unified")).json()["panel_webhook"]
    assert panel == {"configured": True, "path": None}  # its events are polled, not received


@pytest.mark.parametrize("panel_configured", [False])
async def test_unified_health_says_an_unconfigured_panel_is_not(anon_client: httpx2.AsyncClient):
    panel = (await anon_client.get("/health/unified")).json()["panel_webhook"]
    assert panel == {"configured": False, "path": None}


async def test_admin_user_subscription_request_history(
    admin: httpx2.AsyncClient, fake_panel: FakePanel, make_user, make_subscription
):
    user = await make_user()
    mine = await make_subscription(user)
    account = fake_panel.add_user(f"user_{user.messenger_id}", telegramId=user.messenger_id)
    other = fake_panel.add_user("someone_else")
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for n in range(30):
        fake_panel.add_subscription_request(
            account["uuid"], f"Happ/{n}", request_ip=f"10.0.0.{n}", request_at=start + timedelta(hours=n)
        )
    fake_panel.add_subscription_request(other["uuid"], "Streisand", request_at=start)
    fake_panel.add_subscription_request(account["uuid"], None, request_at=start - timedelta(days=1))
    url = f"{USERS}/{user.id}/subscription-request-history"
    body = (await admin.get(url, params={"limit": 2, "subscription_id": mine.id})).json()
    assert fake_panel.count("GET", f"/users/{account['uuid']}/subscription-request-history") == 1
    # the panel answers its latest 24 records: those are paged, newest first
    assert (body["total"], body["offset"], body["limit"]) == (24, 0, 2)
    assert body["items"] == [
        {"id": 30, "request_ip": "10.0.0.29", "user_agent": "Happ/29", "request_at": "2026-01-02T05:00:00Z"},
        {"id": 29, "request_ip": "10.0.0.28", "user_agent": "Happ/28", "request_at": "2026-01-02T04:00:00Z"},
    ]
    tail = (await admin.get(url, params={"offset": 23})).json()
    assert [item["user_agent"] for item in tail["items"]] == ["Happ/6"]
    fake_panel.fail_with(500)
    failed = await admin.get(url)
    assert failed.status_code == 502 and failed.json()["detail"].startswith("VPN panel error")


async def test_subscription_request_history_of_a_user_the_panel_does_not_know(
    admin: httpx2.AsyncClient, fake_panel: FakePanel, make_user
):
    user = await make_user()
    body = (await admin.get(f"{USERS}/{user.id}/subscription-request-history")).json()
    assert body == {"items": [], "total": 0, "offset": 0, "limit": 20}
    assert fake_panel.count("GET", "/users/") >= 1
    assert not any(path.endswith("/subscription-request-history") for _, path in fake_panel.requests)
