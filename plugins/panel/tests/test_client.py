"""The client against the loopback fake panel: the envelope, errors, retries only on
idempotent calls."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from subsvc_panel.client import (
    PanelClient,
    PanelError,
    PanelNotConfigured,
    PanelNotFound,
    PanelUnavailable,
    parse_bytes,
)
from subsvc_panel.testing import FakePanel


@pytest.fixture
async def panel(fake_panel: FakePanel):
    client = PanelClient(fake_panel.url, fake_panel.api_key, timeout=2, max_retries=2, retry_delay=0.01)
    yield client
    await client.aclose()


async def test_not_configured_calls_nothing():
    client = PanelClient(None, "key")
    assert not client.configured
    with pytest.raises(PanelNotConfigured, match="PANEL_API_URL"):
        await client.nodes()
    with pytest.raises(PanelNotConfigured, match="PANEL_API_KEY"):
        await PanelClient("http://127.0.0.1:1", None).nodes()


async def test_users_create_find_update_disable_delete(panel: PanelClient, fake_panel: FakePanel):
    squad = fake_panel.add_squad("Germany")
    expire = datetime.now(UTC) + timedelta(days=10)
    created = await panel.create_user(
        {"username": "user_42", "expireAt": expire, "telegramId": 42, "activeInternalSquads": [squad["uuid"]]}
    )
    assert created["telegramId"] == 42
    assert created["activeInternalSquads"] == [{"uuid": squad["uuid"], "name": "Germany"}]
    assert (await panel.user(created["uuid"]))["username"] == "user_42"
    assert [u["uuid"] for u in await panel.users_by_messenger_id(42)] == [created["uuid"]]
    assert await panel.users_by_messenger_id(43) == []
    updated = await panel.update_user(created["uuid"], {"trafficLimitBytes": 10 * 1024**3})
    assert updated["trafficLimitBytes"] == 10 * 1024**3
    assert (await panel.disable_user(created["uuid"]))["status"] == "DISABLED"
    assert (await panel.enable_user(created["uuid"]))["status"] == "ACTIVE"
    assert await panel.delete_user(created["uuid"]) is True
    assert await panel.delete_user(created["uuid"]) is False
    with pytest.raises(PanelNotFound):
        await panel.user(created["uuid"])


async def test_reset_traffic_revoke_and_forget_devices(panel: PanelClient, fake_panel: FakePanel):
    user = fake_panel.add_user("user_7", telegramId=7, usedTrafficBytes=5 * 1024**3, status="LIMITED")
    fake_panel.add_device(user["uuid"], "hw-1")
    fake_panel.add_device(user["uuid"], "hw-2")
    reset = await panel.reset_user_traffic(user["uuid"])
    assert (reset["usedTrafficBytes"], reset["status"]) == (0, "ACTIVE")
    old_url, old_link = user["subscriptionUrl"], user["happ"]["cryptoLink"]
    revoked = await panel.revoke_user_subscription(user["uuid"])
    assert revoked["uuid"] == user["uuid"]
    assert revoked["subscriptionUrl"] != old_url and revoked["subscriptionUrl"].endswith(revoked["shortUuid"])
    assert revoked["happ"]["cryptoLink"] not in (None, old_link)
    assert await panel.delete_all_user_devices(user["uuid"]) == []
    assert await panel.user_devices(user["uuid"]) == []
    assert fake_panel.requests[-4:] == [
        ("POST", f"/users/{user['uuid']}/actions/reset-traffic"),
        ("POST", f"/users/{user['uuid']}/actions/revoke"),
        ("POST", "/hwid/devices/delete-all"),
        ("GET", f"/hwid/devices/{user['uuid']}"),
    ]
    with pytest.raises(PanelNotFound):
        await panel.reset_user_traffic("no-such-user")
    with pytest.raises(PanelNotFound):
        await panel.delete_all_user_devices("no-such-user")


async def test_revoke_is_sent_once_resets_are_retried(panel: PanelClient, fake_panel: FakePanel):
    user = fake_panel.add_user("user_8")
    fake_panel.fail_with(500)
    with pytest.raises(PanelUnavailable):
        await panel.revoke_user_subscription(user["uuid"])
    assert fake_panel.count("POST", f"/users/{user['uuid']}/actions/revoke") == 1  # each call revokes again
    with pytest.raises(PanelUnavailable):
        await panel.reset_user_traffic(user["uuid"])
    assert fake_panel.count("POST", f"/users/{user['uuid']}/actions/reset-traffic") == 3
    with pytest.raises(PanelUnavailable):
        await panel.delete_all_user_devices(user["uuid"])
    assert fake_panel.count("POST", "/hwid/devices/delete-all") == 3


async def test_users_are_paged(panel: PanelClient, fake_panel: FakePanel):
    fake_panel.add_users(1203)
    page, total = await panel.users_page(1200, 500)
    assert (len(page), total) == (3, 1203)
    everyone = await panel.all_users(page_size=500)
    assert len({u["uuid"] for u in everyone}) == 1203
    assert fake_panel.count("GET", "/users") == 4


async def test_squads_nodes_inbounds(panel: PanelClient, fake_panel: FakePanel):
    inbound = fake_panel.add_inbound("VLESS")
    node = fake_panel.add_node("Frankfurt")
    squad = await panel.create_squad("NL", [inbound["uuid"]])
    assert squad["info"] == {"membersCount": 0, "inboundsCount": 1}
    assert (await panel.update_squad(squad["uuid"], name="Netherlands"))["name"] == "Netherlands"
    assert [s["name"] for s in await panel.squads()] == ["Netherlands"]
    assert [i["tag"] for i in await panel.inbounds()] == ["VLESS"]
    assert (await panel.node_action(node["uuid"], "disable"))["isDisabled"] is True
    assert (await panel.node(node["uuid"]))["isDisabled"] is True
    assert await panel.restart_all_nodes() is True
    assert await panel.delete_squad(squad["uuid"]) is True
    assert await panel.squads() == []


async def test_down_is_unavailable_and_reads_are_retried(panel: PanelClient, fake_panel: FakePanel):
    fake_panel.fail_with(500, times=2)
    assert await panel.nodes() == []  # two 500s, then an answer
    assert fake_panel.count("GET", "/nodes") == 3
    fake_panel.fail_with(500)
    with pytest.raises(PanelUnavailable, match="HTTP 500"):
        await panel.nodes()
    assert fake_panel.count("GET", "/nodes") == 6  # one call and two retries


async def test_creations_are_never_repeated(panel: PanelClient, fake_panel: FakePanel):
    fake_panel.fail_with(500)
    with pytest.raises(PanelUnavailable):
        await panel.create_user({"username": "once", "expireAt": datetime.now(UTC)})
    assert fake_panel.count("POST", "/users") == 1
    with pytest.raises(PanelUnavailable):
        await panel.create_squad("once")
    assert fake_panel.count("POST", "/internal-squads") == 1


async def test_connection_refused_and_garbage(panel: PanelClient, fake_panel: FakePanel):
    fake_panel.garbage = True
    with pytest.raises(PanelUnavailable, match="without a panel answer"):
        await panel.system_stats()
    fake_panel.garbage = False
    await fake_panel.down()
    with pytest.raises(PanelUnavailable, match="cannot connect"):
        await panel.system_stats()
    await fake_panel.up()
    assert (await panel.system_stats())["users"]["totalUsers"] == 0


async def test_wrong_key_and_refusals_are_panel_errors(fake_panel: FakePanel):
    client = PanelClient(fake_panel.url, "wrong", max_retries=2)
    with pytest.raises(PanelError, match="HTTP 401") as caught:
        await client.nodes()
    assert caught.value.status == 401
    assert fake_panel.count("GET", "/nodes") == 1  # a refusal is not retried
    await client.aclose()


def test_parse_bytes():
    assert parse_bytes("1.5 GiB") == 3 * 1024**3 // 2
    assert parse_bytes("200 MB") == 200_000_000
    assert parse_bytes("-512 MiB") == -512 * 1024**2
    assert parse_bytes("12KiB") == 12 * 1024
    assert parse_bytes(1234) == 1234
    assert parse_bytes("0") == 0
    assert parse_bytes("n/a") == 0
    assert parse_bytes(None) == 0


async def test_ten_thousand_users_cost_little(panel: PanelClient, fake_panel: FakePanel):
    fake_panel.add_users(10_000)
    everyone = await panel.all_users(page_size=1000)
    assert len(everyone) == 10_000
    assert fake_panel.count("GET", "/users") == 10
    found = await panel.users_by_messenger_id(500_009_999)
    assert [u["username"] for u in found] == ["user_500009999"]


async def test_subscription_request_history(panel: PanelClient, fake_panel: FakePanel):
    user = fake_panel.add_user("ann")
    moment = datetime(2026, 3, 1, 12, tzinfo=UTC)
    fake_panel.add_subscription_request(user["uuid"], "Happ/1.0", request_ip="10.1.1.1", request_at=moment)
    path = f"/users/{user['uuid']}/subscription-request-history"
    assert await panel.user_subscription_requests(user["uuid"]) == [
        {
            "id": 1,
            "userUuid": user["uuid"],
            "requestAt": "2026-03-01T12:00:00Z",
            "requestIp": "10.1.1.1",
            "userAgent": "Happ/1.0",
        }
    ]
    assert fake_panel.requests[-1] == ("GET", path)
    with pytest.raises(PanelNotFound):
        await panel.user_subscription_requests("00000000-0000-0000-0000-000000000000")
    fake_panel.fail_with(500, times=1, path=path)
    assert len(await panel.user_subscription_requests(user["uuid"])) == 1  # a read is retried
    assert fake_panel.count("GET", path) == 3
