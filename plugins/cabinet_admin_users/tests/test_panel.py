"""The VPN panel operations: 503 without a panel; with one, through the ``cabinet_admin_panel``
hook. This module is itself a plugin whose hook answers an in-memory panel (the panel
plugin of issue 7 will answer a client of the panel's REST API); the rules under test are
ours: which account, what is pushed, what a pull changes, what differs."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from starlette.applications import Starlette
from subsvc_cabinet_admin_users.panel import (
    GIB,
    NodeUsage,
    PanelDevice,
    PanelError,
    PanelUser,
    PushOptions,
    PushResult,
    SubscriptionRequest,
)
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.db import utcnow
from subsvc.hookspecs import hookimpl

PLUGIN_NAME = "panel_fake"
REQUIRES = ("cabinet_admin_users",)
BASE = "/cabinet/admin/users"


class FakePanel:
    """A panel's accounts, devices and traffic, kept in memory."""

    def __init__(self) -> None:
        self.accounts: dict[str, PanelUser] = {}
        self.messenger_ids: dict[int, str] = {}
        self.devices_of: dict[str, list[PanelDevice]] = {}
        self.requests_of: dict[str, list[SubscriptionRequest]] = {}
        self.failure: str | None = None
        self.pushed: list[PushOptions] = []

    def add(self, user: User, **fields: Any) -> PanelUser:
        account = PanelUser(uuid=f"uuid-{len(self.accounts) + 1}", **fields)
        self.accounts[account.uuid] = account
        if user.messenger_id is not None:
            self.messenger_ids[user.messenger_id] = account.uuid
        return account

    def _check(self) -> None:
        if self.failure:
            raise PanelError(self.failure)

    async def find_user(self, user: User, panel_uuid: str | None) -> PanelUser | None:
        self._check()
        if panel_uuid and panel_uuid in self.accounts:
            return self.accounts[panel_uuid]
        uuid = self.messenger_ids.get(user.messenger_id or 0)
        return self.accounts.get(uuid) if uuid else None

    async def devices(self, panel_uuid: str) -> Sequence[PanelDevice]:
        self._check()
        return list(self.devices_of.get(panel_uuid, []))

    async def delete_device(self, panel_uuid: str, hwid: str) -> bool:
        self._check()
        devices = self.devices_of.get(panel_uuid, [])
        kept = [device for device in devices if device.hwid != hwid]
        self.devices_of[panel_uuid] = kept
        return len(kept) < len(devices)

    async def node_usage(self, panel_uuid: str, start: date, end: date) -> tuple[list[str], list[NodeUsage]]:
        self._check()
        labels = [(start + timedelta(days=i)).isoformat() for i in range((end - start).days)]
        nodes = [
            NodeUsage("n-small", "Small", "DE", 10, [10] + [0] * (len(labels) - 1)),
            NodeUsage("n-big", "Big", "NL", 900, [0] * (len(labels) - 1) + [900]),
        ]
        return labels, nodes

    async def push(
        self, user: User, subscription: Subscription, panel_uuid: str | None, options: PushOptions
    ) -> PushResult:
        self._check()
        self.pushed.append(options)
        account = await self.find_user(user, panel_uuid)
        fields = {
            "status": "ACTIVE" if subscription.status == "active" else "DISABLED",
            "expire_at": subscription.end_date,
            "traffic_limit_bytes": subscription.traffic_limit_gb * GIB,
            "device_limit": subscription.device_limit,
            "active_squads": tuple(subscription.connected_squads),
        }
        if account is None:
            if not options.create_if_missing:
                return PushResult("no_changes", None)
            account = self.add(user, **fields)
            return PushResult("created", account.uuid, {"created_in_panel": True})
        self.accounts[account.uuid] = dataclasses.replace(account, **fields)
        return PushResult("updated", account.uuid, {"status": fields["status"]})

    async def request_history(self, panel_uuid: str) -> Sequence[SubscriptionRequest]:
        self._check()
        return list(self.requests_of.get(panel_uuid, []))

    async def disable_user(self, panel_uuid: str) -> bool:
        self._check()
        self.accounts[panel_uuid] = dataclasses.replace(self.accounts[panel_uuid], status="DISABLED")
        return True

    async def delete_user(self, panel_uuid: str) -> bool:
        self._check()
        return self.accounts.pop(panel_uuid, None) is not None


CURRENT: dict[str, FakePanel | None] = {"panel": None}


@hookimpl
def cabinet_admin_panel(app: Starlette) -> FakePanel | None:
    return CURRENT["panel"]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return [
        "subsvc_promo_groups.plugin",
        "subsvc_users.plugin",
        "subsvc_billing.plugin",
        "subsvc_subscriptions.plugin",
        "subsvc_cabinet_admin_users.plugin",
        sys.modules[__name__],
    ]


@pytest.fixture
def panel() -> Any:
    CURRENT["panel"] = FakePanel()
    yield CURRENT["panel"]
    CURRENT["panel"] = None


PANEL_OPERATIONS = [
    ("GET", "/devices", None),
    ("DELETE", "/devices", None),
    ("DELETE", "/devices/hw-1", None),
    ("GET", "/node-usage", None),
    ("GET", "/panel-info", None),
    ("GET", "/sync/status", None),
    ("POST", "/sync/from-panel", {}),
    ("POST", "/sync/to-panel", {}),
]


@pytest.mark.parametrize(("method", "path", "body"), PANEL_OPERATIONS)
async def test_without_a_panel_it_is_503(admin, make_user, method, path, body):
    user = await make_user()
    response = await admin.request(method, f"{BASE}/{user.id}{path}", json=body)
    assert (response.status_code, response.json()) == (503, {"detail": "VPN panel is not configured"})


@pytest.mark.parametrize(("method", "path", "body"), PANEL_OPERATIONS)
async def test_a_panel_failure_is_502(admin, make_user, make_subscription, panel, method, path, body):
    user = await make_user()
    await make_subscription(user)
    panel.failure = "connection refused"
    response = await admin.request(method, f"{BASE}/{user.id}{path}", json=body)
    assert (response.status_code, response.json()) == (502, {"detail": "VPN panel error: connection refused"})


async def test_devices_list_delete_one_and_reset(admin, make_user, make_subscription, panel):
    user = await make_user()
    await make_subscription(user, device_limit=3)
    account = panel.add(user)
    panel.devices_of[account.uuid] = [PanelDevice("hw-1", "ios", "iPhone", "2026-01-01"), PanelDevice("hw-2")]

    listed = (await admin.get(f"{BASE}/{user.id}/devices")).json()
    assert listed == {
        "devices": [
            {
                "hwid": "hw-1",
                "platform": "ios",
                "device_model": "iPhone",
                "created_at": "2026-01-01",
                "local_name": None,
            },
            {"hwid": "hw-2", "platform": "", "device_model": "", "created_at": None, "local_name": None},
        ],
        "total": 2,
        "device_limit": 3,
    }
    deleted = await admin.delete(f"{BASE}/{user.id}/devices/hw-1")
    assert deleted.json() == {"success": True, "message": "Device deleted", "deleted_hwid": "hw-1"}
    again = await admin.delete(f"{BASE}/{user.id}/devices/hw-1")
    assert (again.status_code, again.json()) == (404, {"detail": "Device not found"})
    reset = (await admin.delete(f"{BASE}/{user.id}/devices")).json()
    assert reset == {"success": True, "message": "Deleted 1/1 devices", "deleted_count": 1}
    assert (await admin.delete(f"{BASE}/{user.id}/devices")).json()["message"] == "No devices to reset"


async def test_device_names_are_kept_per_subscription(admin, make_user, make_subscription, panel, db):
    user = await make_user()
    first = await make_subscription(user, device_limit=2)
    second = await make_subscription(user, device_limit=5)
    account = panel.add(user)
    panel.devices_of[account.uuid] = [PanelDevice("hw-1", "ios"), PanelDevice("hw-2")]

    named = await admin.patch(
        f"{BASE}/{user.id}/devices/hw-1/name", params={"subscription_id": first.id}, json={"name": " Phone "}
    )
    assert named.json() == {"hwid": "hw-1", "local_name": "Phone"}
    listed = (await admin.get(f"{BASE}/{user.id}/devices", params={"subscription_id": first.id})).json()
    assert [(d["hwid"], d["local_name"]) for d in listed["devices"]] == [("hw-1", "Phone"), ("hw-2", None)]
    assert listed["device_limit"] == 2
    other = (await admin.get(f"{BASE}/{user.id}/devices", params={"subscription_id": second.id})).json()
    assert [d["local_name"] for d in other["devices"]] == [None, None] and other["device_limit"] == 5

    renamed = await admin.patch(
        f"{BASE}/{user.id}/devices/hw-1/name", params={"subscription_id": first.id}, json={"name": "Tablet"}
    )
    assert renamed.json()["local_name"] == "Tablet"
    cleared = await admin.patch(
        f"{BASE}/{user.id}/devices/hw-1/name", params={"subscription_id": first.id}, json={"name": ""}
    )
    assert cleared.json() == {"hwid": "hw-1", "local_name": None}
    from sqlmodel import select
    from subsvc_cabinet_admin_users.models import DeviceName

    async with db.session() as session:
        assert (await session.exec(select(DeviceName))).all() == []


async def test_a_device_name_needs_a_subscription_of_the_user(admin, make_user, make_subscription):
    user, stranger = await make_user(), await make_user()
    theirs = await make_subscription(stranger)
    response = await admin.patch(f"{BASE}/{user.id}/devices/hw-1/name", json={"name": "Phone"})
    assert (response.status_code, response.json()) == (404, {"detail": "User has no subscription"})
    await make_subscription(user)
    response = await admin.patch(
        f"{BASE}/{user.id}/devices/hw-1/name", params={"subscription_id": theirs.id}, json={"name": "x"}
    )
    assert (response.status_code, response.json()) == (404, {"detail": "Subscription not found"})


@pytest.mark.parametrize(("method", "path", "body"), PANEL_OPERATIONS)
async def test_another_users_subscription_id_is_404(
    admin, make_user, make_subscription, panel, method, path, body
):
    user, stranger = await make_user(), await make_user()
    await make_subscription(user)
    theirs = await make_subscription(stranger)
    panel.add(user)
    response = await admin.request(
        method, f"{BASE}/{user.id}{path}", params={"subscription_id": theirs.id}, json=body
    )
    assert (response.status_code, response.json()) == (404, {"detail": "Subscription not found"})


async def test_sync_status_of_a_chosen_subscription(admin, make_user, make_subscription, panel):
    user = await make_user()
    first = await make_subscription(user, device_limit=2)
    await make_subscription(user, device_limit=4)
    panel.add(user)
    status = (await admin.get(f"{BASE}/{user.id}/sync/status", params={"subscription_id": first.id})).json()
    assert (status["subscription_id"], status["bot_device_limit"]) == (first.id, 2)
    assert status["panel_id"] is None and status["subscription_tariff_name"] is None
    pushed = (
        await admin.post(f"{BASE}/{user.id}/sync/to-panel", params={"subscription_id": first.id}, json={})
    ).json()
    assert pushed["success"] is True and pushed["panel_user_id"] is None


async def test_a_user_without_panel_account(admin, make_user, panel):
    user = await make_user()
    assert (await admin.get(f"{BASE}/{user.id}/devices")).json() == {
        "devices": [],
        "total": 0,
        "device_limit": 0,
    }
    for path in ("/devices", "/devices/hw-1"):
        response = await admin.delete(f"{BASE}/{user.id}{path}")
        assert (response.status_code, response.json()) == (400, {"detail": "User has no panel account"})
    assert (await admin.get(f"{BASE}/{user.id}/panel-info")).json()["found"] is False
    assert (await admin.get(f"{BASE}/{user.id}/node-usage")).json() == {
        "items": [],
        "categories": [],
        "period_days": 30,
    }
    status = (await admin.get(f"{BASE}/{user.id}/sync/status")).json()
    assert (status["panel_found"], status["differences"]) == (False, ["User not found in panel"])
    pulled = (await admin.post(f"{BASE}/{user.id}/sync/from-panel")).json()
    assert (pulled["success"], pulled["message"]) == (False, "User not found in panel")
    pushed = await admin.post(f"{BASE}/{user.id}/sync/to-panel")
    assert (pushed.status_code, pushed.json()) == (400, {"detail": "User has no subscription to sync"})


async def test_node_usage_busiest_first_over_30_days(admin, make_user, panel):
    user = await make_user()
    panel.add(user)
    body = (await admin.get(f"{BASE}/{user.id}/node-usage")).json()
    assert [item["node_uuid"] for item in body["items"]] == ["n-big", "n-small"]
    assert (body["period_days"], len(body["categories"]), len(body["items"][0]["daily_bytes"])) == (
        30,
        30,
        30,
    )
    assert body["items"][0] == {
        "node_uuid": "n-big",
        "node_name": "Big",
        "country_code": "NL",
        "total_bytes": 900,
        "daily_bytes": [0] * 29 + [900],
    }


async def test_panel_info(admin, make_user, panel):
    user = await make_user()
    panel.add(
        user,
        vless_uuid="v-1",
        subscription_url="https://sub.example/abc",
        used_traffic_bytes=5 * GIB,
        traffic_limit_bytes=50 * GIB,
        last_connected_node_name="Big",
    )
    body = (await admin.get(f"{BASE}/{user.id}/panel-info")).json()
    assert body["found"] is True
    assert (body["vless_uuid"], body["subscription_url"], body["last_connected_node_name"]) == (
        "v-1",
        "https://sub.example/abc",
        "Big",
    )
    assert (body["used_traffic_bytes"], body["traffic_limit_bytes"]) == (5 * GIB, 50 * GIB)


async def test_sync_to_panel_creates_then_updates_and_records_the_link(
    admin, make_user, make_subscription, panel, reload
):
    user = await make_user()
    subscription = await make_subscription(
        user, traffic_limit_gb=40, device_limit=2, connected_squads=["sq-1"]
    )
    created = (await admin.post(f"{BASE}/{user.id}/sync/to-panel")).json()
    assert (created["success"], created["action"], created["message"]) == (
        True,
        "created",
        "User created in panel",
    )
    uuid = created["panel_uuid"]
    assert panel.accounts[uuid].traffic_limit_bytes == 40 * GIB
    assert (await reload(Subscription, subscription.id)).panel_sync_state == "synced"
    assert (await admin.get(f"{BASE}/{user.id}")).json()["panel_uuid"] == uuid

    body = {"update_squads": False, "create_if_missing": False}
    updated = (await admin.post(f"{BASE}/{user.id}/sync/to-panel", json=body)).json()
    assert (updated["action"], updated["panel_uuid"]) == ("updated", uuid)
    assert panel.pushed[-1] == PushOptions(create_if_missing=False, squads=False)

    status = (await admin.get(f"{BASE}/{user.id}/sync/status")).json()
    assert (status["panel_found"], status["has_differences"], status["differences"]) == (True, False, [])
    assert status["last_sync"] is not None and status["panel_uuid"] == uuid


async def test_sync_status_names_the_differences(admin, make_user, make_subscription, panel):
    user = await make_user()
    subscription = await make_subscription(user, traffic_limit_gb=10, device_limit=1, connected_squads=["a"])
    panel.add(
        user,
        status="DISABLED",
        expire_at=subscription.end_date + timedelta(days=2),
        traffic_limit_bytes=30 * GIB,
        used_traffic_bytes=2 * GIB,
        device_limit=4,
        active_squads=("a", "b"),
    )
    status = (await admin.get(f"{BASE}/{user.id}/sync/status")).json()
    assert status["has_differences"] is True
    assert status["differences"] == [
        "Status: bot=active, panel=DISABLED",
        "End date differs by 48.0 hours",
        "Traffic limit: bot=10GB, panel=30.0GB",
        "Traffic used: bot=0.00GB, panel=2.00GB",
        "Device limit: bot=1, panel=4",
        "Squads mismatch (only in panel: 1)",
    ]
    assert (
        status["bot_traffic_limit_gb"],
        status["panel_traffic_limit_gb"],
        status["panel_device_limit"],
    ) == (
        10,
        30.0,
        4,
    )


async def test_sync_from_panel_writes_the_panel_state(admin, make_user, make_subscription, panel, reload):
    user = await make_user()
    subscription = await make_subscription(user, traffic_limit_gb=10)
    expire = (utcnow() + timedelta(days=90)).replace(microsecond=0)
    account = panel.add(
        user,
        status="ACTIVE",
        expire_at=expire,
        traffic_limit_bytes=200 * GIB,
        used_traffic_bytes=3 * GIB,
        device_limit=5,
        active_squads=("sq-9",),
        subscription_url="https://sub.example/x",
    )
    body = (await admin.post(f"{BASE}/{user.id}/sync/from-panel")).json()
    assert body["success"] is True and body["panel_user"]["uuid"] == account.uuid
    assert set(body["changes"]) == {
        "end_date",
        "traffic_limit_gb",
        "device_limit",
        "connected_squads",
        "subscription_url",
        "traffic_used_gb",
        "panel_uuid",
    }
    row = await reload(Subscription, subscription.id)
    assert (row.end_date, row.traffic_limit_gb, row.device_limit, row.connected_squads) == (
        expire,
        200,
        5,
        ["sq-9"],
    )
    assert (row.traffic_used_gb, row.subscription_url, row.panel_sync_state) == (
        3.0,
        "https://sub.example/x",
        "synced",
    )
    again = (await admin.post(f"{BASE}/{user.id}/sync/from-panel")).json()
    assert (again["message"], again["changes"]) == ("No changes needed", {})


async def test_sync_from_panel_creates_a_missing_subscription_when_asked(admin, make_user, panel, reload):
    user = await make_user()
    panel.add(
        user, status="ACTIVE", expire_at=utcnow() + timedelta(days=12, hours=1), traffic_limit_bytes=GIB
    )
    plain = (await admin.post(f"{BASE}/{user.id}/sync/from-panel")).json()
    assert "subscription_created" not in plain["changes"]
    body = (await admin.post(f"{BASE}/{user.id}/sync/from-panel", json={"create_if_missing": True})).json()
    subscription = await reload(Subscription, body["changes"]["subscription_created"])
    assert (subscription.user_id, subscription.traffic_limit_gb, subscription.is_trial) == (user.id, 1, False)
    assert (subscription.end_date - utcnow()).days == 13 - 1


async def test_disable_and_full_delete_reach_the_panel(admin, make_user, make_subscription, panel, reload):
    user = await make_user()
    await make_subscription(user)
    account = panel.add(user, status="ACTIVE")
    disabled = (await admin.post(f"{BASE}/{user.id}/disable")).json()
    assert (disabled["panel_deactivated"], disabled["panel_error"]) == (True, None)
    assert panel.accounts[account.uuid].status == "DISABLED"

    deleted = (await admin.delete(f"{BASE}/{user.id}/full")).json()
    assert deleted == {
        "success": True,
        "message": "User fully deleted from bot and panel",
        "deleted_from_bot": True,
        "deleted_from_panel": True,
        "panel_error": None,
    }
    assert account.uuid not in panel.accounts
    assert await reload(User, user.id) is None


async def test_a_panel_failure_does_not_keep_a_full_delete_from_our_database(admin, make_user, panel, reload):
    user = await make_user()
    panel.add(user)
    panel.failure = "timeout"
    body = (await admin.delete(f"{BASE}/{user.id}/full")).json()
    assert (body["deleted_from_bot"], body["deleted_from_panel"], body["panel_error"]) == (
        True,
        False,
        "VPN panel error: timeout",
    )
    assert await reload(User, user.id) is None


async def test_request_history_pages_the_accounts_log(admin, make_user, make_subscription, panel):
    user, stranger = await make_user(), await make_user()
    mine, theirs = await make_subscription(user), await make_subscription(stranger)
    account = panel.add(user)
    moment = utcnow().replace(microsecond=0)
    panel.requests_of[account.uuid] = [
        SubscriptionRequest(n, moment - timedelta(minutes=n), f"10.0.0.{n}", f"Happ/{n}") for n in range(1, 6)
    ]
    url = f"{BASE}/{user.id}/subscription-request-history"
    first = (await admin.get(url, params={"limit": 2})).json()
    assert (first["total"], first["offset"], first["limit"]) == (5, 0, 2)
    newest = first["items"][0]
    assert (newest["id"], newest["request_ip"], newest["user_agent"]) == (1, "10.0.0.1", "Happ/1")
    assert [item["id"] for item in first["items"]] == [1, 2]
    at = datetime.fromisoformat(newest["request_at"].replace("Z", "+00:00"))
    assert at.replace(tzinfo=None) == (moment - timedelta(minutes=1)).replace(tzinfo=None)
    last = (await admin.get(url, params={"offset": 4, "limit": 2, "subscription_id": mine.id})).json()
    assert [item["id"] for item in last["items"]] == [5] and last["total"] == 5
    beyond = (await admin.get(url, params={"offset": 10})).json()
    assert (beyond["items"], beyond["total"]) == ([], 5)
    other = await admin.get(url, params={"subscription_id": theirs.id})
    assert (other.status_code, other.json()) == (404, {"detail": "Subscription not found"})
    for bad in ({"limit": 0}, {"limit": 101}, {"offset": -1}):
        assert (await admin.get(url, params=bad)).status_code == 422


async def test_request_history_of_a_user_without_an_account_is_empty(admin, make_user, panel):
    user = await make_user()
    body = (await admin.get(f"{BASE}/{user.id}/subscription-request-history")).json()
    assert body == {"items": [], "total": 0, "offset": 0, "limit": 20}
    missing = await admin.get(f"{BASE}/999999/subscription-request-history")
    assert (missing.status_code, missing.json()) == (404, {"detail": "User not found"})


async def test_request_history_when_the_panel_fails_is_502(admin, make_user, panel):
    user = await make_user()
    panel.add(user)
    panel.failure = "timeout"
    response = await admin.get(f"{BASE}/{user.id}/subscription-request-history")
    assert (response.status_code, response.json()) == (502, {"detail": "VPN panel error: timeout"})


@pytest.mark.parametrize("path", ["/devices", "/node-usage", "/panel-info"])
async def test_the_users_own_subscription_id_reads_the_account(
    admin, make_user, make_subscription, panel, path
):
    user = await make_user()
    mine = await make_subscription(user)
    panel.add(user)
    without = await admin.get(f"{BASE}/{user.id}{path}")
    chosen = await admin.get(f"{BASE}/{user.id}{path}", params={"subscription_id": mine.id})
    assert chosen.status_code == 200 and chosen.json() == without.json()


async def test_sync_from_panel_into_a_chosen_subscription(admin, make_user, make_subscription, panel, reload):
    user = await make_user()
    first = await make_subscription(user, device_limit=1)
    second = await make_subscription(user, device_limit=1)
    panel.add(user, device_limit=6)
    response = await admin.post(
        f"{BASE}/{user.id}/sync/from-panel", params={"subscription_id": first.id}, json={}
    )
    body = response.json()
    assert body["success"] is True and body["panel_user"]["id"] is None
    assert (await reload(Subscription, first.id)).device_limit == 6
    assert (await reload(Subscription, second.id)).device_limit == 1
