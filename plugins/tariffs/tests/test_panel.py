"""The VPN panel operations: 503 without a panel; with one, through the ``tariffs_panel`` hook.
This module is itself a plugin whose hook answers an in-memory panel (the panel plugin of
issue 7 will answer a client of the panel's REST API); the rules under test are ours: which
subscriptions a sync touches, what it writes back, how failures and skips count."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence

import pytest
from subsvc_subscriptions.models import Subscription
from subsvc_tariffs.panel import ExternalSquad, PanelError

from subsvc.hookspecs import hookimpl

PLUGIN_NAME = "tariffs_panel_fake"
REQUIRES = ("tariffs",)
BASE = "/cabinet/admin/tariffs"
EXTERNAL = "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d"


class FakePanel:
    """Panel accounts (one per subscription id) and external squads, kept in memory."""

    def __init__(self) -> None:
        self.accounts: dict[int, tuple[list[str], str | None]] = {}
        self.squads: list[ExternalSquad] = []
        self.failing: set[int] = set()
        self.down: str | None = None
        self.calls: list[int] = []
        self.in_flight = 0
        self.most_in_flight = 0

    async def external_squads(self) -> Sequence[ExternalSquad]:
        if self.down:
            raise PanelError(self.down)
        return list(self.squads)

    async def set_squads(
        self, user_id: int, subscription_id: int, squads: Sequence[str], external_squad_uuid: str | None
    ) -> bool:
        self.calls.append(subscription_id)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(0.001)
            if self.down or subscription_id in self.failing:
                raise PanelError(self.down or "user update refused")
            if subscription_id not in self.accounts:
                return False
            self.accounts[subscription_id] = (list(squads), external_squad_uuid)
            return True
        finally:
            self.in_flight -= 1


PANEL = FakePanel()


@hookimpl
def tariffs_panel(app):
    return PANEL


@pytest.fixture
def panel() -> FakePanel:
    global PANEL
    PANEL = FakePanel()
    return PANEL


class TestWithoutAPanel:
    async def test_external_squads_are_503(self, admin):
        response = await admin.get(f"{BASE}/available-external-squads")
        assert response.status_code == 503
        assert response.json() == {"detail": "VPN panel is not configured"}

    async def test_sync_is_503_and_changes_nothing(self, admin, make_tariff, make_subscription, rows):
        tariff = await make_tariff()
        await make_subscription(tariff_id=tariff["id"], connected_squads=["old"])
        response = await admin.post(f"{BASE}/{tariff['id']}/sync-squads")
        assert response.status_code == 503
        assert response.json() == {"detail": "VPN panel is not configured"}
        (row,) = await rows(Subscription)
        assert row.connected_squads == ["old"]


class TestWithAPanel:
    @pytest.fixture
    def subsvc_plugins(self, subsvc_plugins):
        return [*subsvc_plugins, sys.modules[__name__]]

    async def test_external_squads_come_from_the_panel(self, admin, panel):
        panel.squads = [ExternalSquad(EXTERNAL, "Premium", 12), ExternalSquad("e2", "Plain")]
        response = await admin.get(f"{BASE}/available-external-squads")
        assert response.status_code == 200
        assert response.json() == [
            {"uuid": EXTERNAL, "name": "Premium", "members_count": 12},
            {"uuid": "e2", "name": "Plain", "members_count": 0},
        ]

    async def test_a_panel_failure_is_502(self, admin, panel):
        panel.down = "connection refused"
        response = await admin.get(f"{BASE}/available-external-squads")
        assert response.status_code == 502
        assert response.json() == {"detail": "VPN panel error: connection refused"}

    async def test_sync_touches_live_subscriptions_of_the_tariff(
        self, admin, panel, make_tariff, make_server, make_subscription, rows
    ):
        servers = [await make_server(), await make_server()]
        squads = [s.squad_uuid for s in servers]
        tariff = await make_tariff(name="Pro", allowed_squads=squads, external_squad_uuid=EXTERNAL)
        synced = await make_subscription(tariff_id=tariff["id"], status="active", connected_squads=["old"])
        trial = await make_subscription(tariff_id=tariff["id"], status="trial", is_trial=True)
        no_account = await make_subscription(
            tariff_id=tariff["id"], status="active", connected_squads=["old"]
        )
        refused = await make_subscription(tariff_id=tariff["id"], status="active", connected_squads=["old"])
        expired = await make_subscription(tariff_id=tariff["id"], status="expired")
        elsewhere = await make_subscription(status="active")
        for subscription in (synced, trial, refused, expired, elsewhere):
            panel.accounts[subscription.id] = (["old"], None)
        panel.failing = {refused.id}

        response = await admin.post(f"{BASE}/{tariff['id']}/sync-squads")
        assert response.status_code == 200
        assert response.json() == {
            "tariff_id": tariff["id"],
            "tariff_name": "Pro",
            "total_subscriptions": 4,
            "updated_count": 2,
            "failed_count": 1,
            "skipped_count": 1,
            "errors": [f"subscription {refused.id} (user {refused.user_id}): user update refused"],
        }
        assert sorted(panel.calls) == sorted([synced.id, trial.id, no_account.id, refused.id])
        assert panel.accounts[synced.id] == (squads, EXTERNAL)
        assert panel.accounts[trial.id] == (squads, EXTERNAL)
        assert panel.accounts[expired.id] == (["old"], None)
        ours = {row.id: row.connected_squads for row in await rows(Subscription)}
        assert ours[synced.id] == squads and ours[trial.id] == squads
        assert ours[no_account.id] == ["old"] and ours[refused.id] == ["old"]  # only what the panel took

    async def test_sync_with_nothing_to_touch(self, admin, panel, make_tariff):
        tariff = await make_tariff(name="Lonely")
        body = (await admin.post(f"{BASE}/{tariff['id']}/sync-squads")).json()
        assert body == {
            "tariff_id": tariff["id"],
            "tariff_name": "Lonely",
            "total_subscriptions": 0,
            "updated_count": 0,
            "failed_count": 0,
            "skipped_count": 0,
            "errors": [],
        }
        assert panel.calls == []


class TestSyncLimits:
    @pytest.fixture
    def subsvc_plugins(self, subsvc_plugins):
        return [*subsvc_plugins, sys.modules[__name__]]

    @pytest.fixture(autouse=True)
    def limits(self, monkeypatch):
        monkeypatch.setenv("TARIFFS_SYNC_CONCURRENCY", "2")
        monkeypatch.setenv("TARIFFS_SYNC_MAX_CONSECUTIVE_FAILURES", "3")

    async def test_a_panel_that_keeps_failing_is_left_alone(
        self, admin, panel, make_tariff, make_subscription
    ):
        tariff = await make_tariff()
        for _ in range(8):
            subscription = await make_subscription(tariff_id=tariff["id"])
            panel.accounts[subscription.id] = ([], None)
        panel.down = "timeout"
        body = (await admin.post(f"{BASE}/{tariff['id']}/sync-squads")).json()
        assert (body["total_subscriptions"], body["updated_count"]) == (8, 0)
        # the requests in flight when the third failure came in still count; nothing starts after it
        assert 3 <= body["failed_count"] <= 3 + 2 - 1
        assert body["skipped_count"] == 8 - body["failed_count"]
        assert len(panel.calls) == body["failed_count"]
        assert "Stopped after 3 consecutive failures" in body["errors"]
        assert panel.most_in_flight <= 2

    async def test_a_success_resets_the_failure_run(self, admin, panel, make_tariff, make_subscription):
        tariff = await make_tariff()
        made = [await make_subscription(tariff_id=tariff["id"]) for _ in range(6)]
        for subscription in made:
            panel.accounts[subscription.id] = ([], None)
        panel.failing = {made[0].id, made[1].id, made[3].id, made[4].id}
        body = (await admin.post(f"{BASE}/{tariff['id']}/sync-squads")).json()
        assert (body["updated_count"], body["failed_count"], body["skipped_count"]) == (2, 4, 0)
