"""Admin Traffic against the fake panel: users' traffic per node, filters, sorting, pages,
enrichment and the CSV export sent to the administrator's chat."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from subsvc_panel.testing import FakePanel

from subsvc.testing import ADMIN_MESSENGER_ID, asgi_transport
from subsvc.testing_messenger import FakeBotAPI

from .conftest import PANEL_SETTINGS

BASE = "/cabinet/admin/traffic"
TODAY = datetime.now(UTC).date()
BOSS = "boss@example.org"


@pytest.fixture
def subsvc_settings_overrides(
    fake_panel: FakePanel, fake_bot_api: FakeBotAPI, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    for name in PANEL_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    for name, value in fake_panel.env().items():
        monkeypatch.setenv(name, value)
    return fake_bot_api.settings(ADMIN_EMAILS=[BOSS])


@pytest.fixture
async def seeded(fake_panel: FakePanel, make_user, make_subscription) -> dict[str, Any]:
    """Two nodes; Ann (active, 3 GiB on DE + 1 GiB on NL), Bob (trial, 1 GiB on NL), Cid
    (disabled, no traffic); Ann's account named as the plugin names it, Bob's not."""
    de, nl = (
        fake_panel.add_node("Germany", countryCode="DE"),
        fake_panel.add_node("Holland", countryCode="NL"),
    )
    ann = await make_user(first_name="Ann", username="ann", messenger_id=801)
    bob = await make_user(first_name="Bob", username="=bob", messenger_id=802)
    cid = await make_user(first_name="Cid", messenger_id=803)
    await make_subscription(ann, status="active", traffic_limit_gb=50)
    await make_subscription(bob, status="trial", device_limit=1)
    await make_subscription(cid, status="disabled")
    ann_account = fake_panel.add_user("user_801", telegramId=801, lastConnectedNode={"nodeName": "Germany"})
    bob_account = fake_panel.add_user("bob-custom-name", telegramId=802)
    fake_panel.add_usage(ann_account["uuid"], de["uuid"], TODAY.isoformat(), 3 * 1024**3)
    fake_panel.add_usage(ann_account["uuid"], nl["uuid"], (TODAY - timedelta(days=2)).isoformat(), 1024**3)
    fake_panel.add_usage(bob_account["uuid"], nl["uuid"], TODAY.isoformat(), 1024**3)
    fake_panel.add_usage(
        bob_account["uuid"], nl["uuid"], (TODAY - timedelta(days=40)).isoformat(), 9 * 1024**3
    )
    fake_panel.add_device(ann_account["uuid"], "hw-1")
    fake_panel.add_device(ann_account["uuid"], "hw-2")
    return {"de": de["uuid"], "nl": nl["uuid"], "ann": ann, "bob": bob, "cid": cid}


async def test_traffic_per_user_and_node(admin: httpx2.AsyncClient, seeded: dict[str, Any]):
    response = await admin.get(BASE)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["total"] == 3 and body["period_days"] == 30
    assert [n["node_name"] for n in body["nodes"]] == ["Germany", "Holland"]
    assert body["available_statuses"] == ["active", "disabled", "trial"]
    ann, bob, cid = body["items"]
    assert (ann["full_name"], ann["total_bytes"]) == ("Ann", 4 * 1024**3)
    assert ann["node_traffic"] == {seeded["de"]: 3 * 1024**3, seeded["nl"]: 1024**3}
    assert ann["traffic_limit_gb"] == 50 and ann["subscription_status"] == "active"
    assert (bob["full_name"], bob["total_bytes"]) == ("Bob", 1024**3)  # matched by messenger id
    assert (cid["total_bytes"], cid["node_traffic"]) == (0, {})


async def test_filters_sorting_and_pages(admin: httpx2.AsyncClient, seeded: dict[str, Any]):
    async def names(**params: Any) -> list[str]:
        response = await admin.get(BASE, params=params)
        assert response.status_code == 200, response.text
        return [item["full_name"] for item in response.json()["items"]]

    assert await names(sort_by="full_name", sort_desc=False) == ["Ann", "Bob", "Cid"]
    assert await names(sort_by=seeded["nl"]) == ["Bob", "Ann", "Cid"]  # a tie: the newer user first
    assert await names(statuses="trial,disabled", sort_by="full_name", sort_desc=False) == ["Bob", "Cid"]
    assert await names(search="ANN") == ["Ann"]
    assert await names(search="802") == ["Bob"]
    assert await names(limit=1, offset=1) == ["Bob"]
    only_de = (await admin.get(BASE, params={"nodes": seeded["de"]})).json()
    assert [n["node_uuid"] for n in only_de["nodes"]] == [seeded["de"]]
    assert only_de["items"][0]["total_bytes"] == 3 * 1024**3
    window = (
        await admin.get(BASE, params={"start_date": TODAY.isoformat(), "end_date": TODAY.isoformat()})
    ).json()
    assert window["period_days"] == 1
    assert window["items"][0]["total_bytes"] == 3 * 1024**3  # Ann's Holland traffic was two days ago
    assert (await admin.get(BASE, params={"start_date": "2026-13-01"})).status_code == 400
    assert (await admin.get(BASE, params={"period": 31})).status_code == 422
    assert (await admin.get(BASE, params={"limit": 0})).status_code == 422


async def test_enrichment(admin: httpx2.AsyncClient, seeded: dict[str, Any]):
    data = (await admin.get(f"{BASE}/enrichment")).json()["data"]
    ann = data[str(seeded["ann"].id)]
    assert ann["devices_connected"] == 2
    assert ann["last_node_name"] == "Germany"
    assert ann["subscription_end_date"] is not None
    assert data[str(seeded["cid"].id)]["devices_connected"] == 0


@pytest.fixture
async def messenger_admin(app: Starlette, make_user) -> AsyncIterator[httpx2.AsyncClient]:
    """An administrator (messenger id in ADMIN_IDS) who has a user row, so a chat."""
    user = await make_user(first_name="Admin", messenger_id=ADMIN_MESSENGER_ID)
    token = app.state.jwt.access_token(user.id, messenger_id=ADMIN_MESSENGER_ID)
    transport = asgi_transport(app)
    async with httpx2.AsyncClient(
        transport=transport, base_url="http://testserver", headers={"Authorization": f"Bearer {token}"}
    ) as http:
        yield http


async def test_export_csv_is_sent_to_the_admin_chat(
    messenger_admin: httpx2.AsyncClient, seeded: dict[str, Any], fake_bot_api: FakeBotAPI
):
    response = await messenger_admin.post(f"{BASE}/export-csv", json={"period": 7, "total_threshold_gb": 0.1})
    assert response.status_code == 200, response.text
    assert response.json() == {"success": True, "message": "CSV report with 3 users sent"}
    (call,) = fake_bot_api.calls_of("sendDocument")
    assert call.params["chat_id"] == str(ADMIN_MESSENGER_ID)
    upload = call.params["_uploads"]["document"]
    assert upload["filename"].startswith("traffic_") and upload["filename"].endswith(".csv")
    lines = list(csv.reader(io.StringIO(upload["content"].decode())))
    assert lines[0][:5] == ["user_id", "messenger_id", "username", "email", "full_name"]
    assert "Germany (GB)" in lines[0] and lines[0][-1] == "risk"
    by_name = {line[4]: line for line in lines[1:]}
    assert by_name["Ann"][-1] == "total"  # 4 GiB in 7 days is above 0.1 GB a day
    assert by_name["Bob"][2] == "'=bob"  # a formula-like cell is quoted
    assert by_name["Cid"][-1] == ""


async def test_export_csv_without_a_chat_is_400(app: Starlette, seeded: dict[str, Any]):
    token = app.state.jwt.access_token(987_654, email=BOSS, email_verified=True)
    transport = asgi_transport(app)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(
        transport=transport, base_url="http://testserver", headers=headers
    ) as admin:
        response = await admin.post(f"{BASE}/export-csv", json={})
    assert response.status_code == 400, response.text
    assert response.json() == {"detail": "Your account has no messenger chat to send the report to"}


async def test_panel_down_is_502(admin: httpx2.AsyncClient, seeded: dict[str, Any], fake_panel: FakePanel):
    await fake_panel.down()
    assert (await admin.get(BASE)).status_code == 502
    assert (await admin.get(f"{BASE}/enrichment")).status_code == 502


async def test_every_subscription_of_a_user_is_listed_current_first(
    admin: httpx2.AsyncClient, seeded: dict[str, Any], make_subscription
):
    ann = seeded["ann"]
    second = await make_subscription(ann, status="expired", days=-3, traffic_limit_gb=10, device_limit=5)
    items = {item["full_name"]: item for item in (await admin.get(BASE)).json()["items"]}
    first, other = items["Ann"]["subscriptions"]
    assert (first["status"], first["traffic_limit_gb"], first["device_limit"]) == ("active", 50.0, 3)
    assert first["tariff_name"] is None
    assert other == {
        "subscription_id": second.id,
        "tariff_name": None,
        "status": "expired",
        "traffic_limit_gb": 10.0,
        "device_limit": 5,
    }
    assert items["Ann"]["subscription_status"] == "active"  # the current one's fields
    assert [s["status"] for s in items["Bob"]["subscriptions"]] == ["trial"]
    data = (await admin.get(f"{BASE}/enrichment")).json()["data"]
    dates = data[str(ann.id)]["subscriptions"]
    assert [d["subscription_id"] for d in dates] == [first["subscription_id"], second.id]
    assert datetime.fromisoformat(dates[1]["end_date"]) < datetime.now(UTC)
    assert dates[0]["end_date"] == data[str(ann.id)]["subscription_end_date"]
