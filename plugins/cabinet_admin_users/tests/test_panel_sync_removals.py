"""Removing subscriptions and users while the panel_sync plugin queues every subscription
change (issue 16): the removal answers 200 and its change still reaches the panel (the panel
user is disabled, never left active), through the loopback fake panel.

Every subscription here is made through the API, so it has a ``panel_sync_states`` row
(queued, then pushed) before it is removed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import col, select
from subsvc_panel.testing import FakePanel
from subsvc_panel_sync.models import PanelSyncState
from subsvc_panel_sync.testing import FAST_SYNC
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.db import utcnow
from subsvc.testing import wait_until

BASE = "/cabinet/admin/users"
PLUGINS = [
    "subsvc_promo_groups.plugin",
    "subsvc_users.plugin",
    "subsvc_billing.plugin",
    "subsvc_subscriptions.plugin",
    "subsvc_servers.plugin",
    "subsvc_panel.plugin",
    "subsvc_panel_sync.plugin",
    "subsvc_cabinet_admin_users.plugin",
]


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return list(PLUGINS)


@pytest.fixture
def panel(fake_panel: FakePanel, monkeypatch: pytest.MonkeyPatch) -> FakePanel:
    for name, value in {**FAST_SYNC, **fake_panel.env(), "PANEL_MAX_RETRIES": "0"}.items():
        monkeypatch.setenv(name, value)
    return fake_panel


@pytest.fixture
def subsvc_settings_overrides(panel: FakePanel) -> dict[str, Any]:
    return {}


async def _sync_state(client, subscription_id: int) -> dict[str, Any]:
    response = await client.get(f"/panel/sync/subscriptions/{subscription_id}")
    assert response.status_code == 200, response.text
    return dict(response.json())


async def _subscribed(admin, client, wait_for, user: User, *, is_trial: bool = False) -> dict[str, Any]:
    """A subscription made through the admin API, once the panel has its user: the sync state."""
    body = {"action": "create", "days": 30, "is_trial": is_trial}
    response = await admin.post(f"{BASE}/{user.id}/subscription", json=body)
    assert response.status_code == 200, response.text
    subscription_id = response.json()["subscription"]["id"]

    async def synced() -> bool:
        state = await _sync_state(client, subscription_id)
        return state["panel_sync_status"] == "synced"

    await wait_for(synced)
    return {**await _sync_state(client, subscription_id), "id": subscription_id}


async def _queue_drained(db) -> None:
    """Wait until panel_sync's queue holds no change waiting to be pushed."""

    async def drained() -> bool:
        async with db.session() as session:
            waiting = await session.exec(
                select(PanelSyncState).where(col(PanelSyncState.status).in_(["pending", "failed"]))
            )
            return not waiting.all()

    await wait_until(drained)


def _status(panel: FakePanel, uuid: str) -> str | None:
    user = panel.users.get(uuid)
    return None if user is None else str(user["status"])


async def test_reset_subscription_disables_the_panel_user(admin, client, panel, make_user, reload, wait_for):
    user = await make_user()
    state = await _subscribed(admin, client, wait_for, user)
    assert _status(panel, state["panel_uuid"]) == "ACTIVE"

    response = await admin.post(f"{BASE}/{user.id}/reset-subscription", json={})
    assert response.status_code == 200, response.text
    assert response.json()["subscription_deleted"] is True
    assert await reload(Subscription, state["id"]) is None
    await wait_for(lambda: _status(panel, state["panel_uuid"]) == "DISABLED")


async def test_reset_subscription_while_the_panel_is_down_disables_it_once_back(
    admin, client, panel, make_user, reload, wait_for
):
    user = await make_user()
    state = await _subscribed(admin, client, wait_for, user)
    await panel.down()
    response = await admin.post(f"{BASE}/{user.id}/reset-subscription", json={})
    assert response.status_code == 200, response.text
    assert (response.json()["panel_deactivated"], response.json()["panel_error"] is not None) == (False, True)
    assert await reload(Subscription, state["id"]) is None
    await panel.up()
    await wait_for(lambda: _status(panel, state["panel_uuid"]) == "DISABLED")


async def test_reset_subscription_without_the_panel_step_leaves_the_panel_user_to_cleanup(
    admin, client, panel, make_user, reload, wait_for, db
):
    user = await make_user()
    state = await _subscribed(admin, client, wait_for, user)
    body = {"deactivate_in_panel": False}
    response = await admin.post(f"{BASE}/{user.id}/reset-subscription", json=body)
    assert response.status_code == 200, response.text
    assert await reload(Subscription, state["id"]) is None
    await _queue_drained(db)
    assert _status(panel, state["panel_uuid"]) == "ACTIVE"
    # until a cleanup sync: the orphan is disabled, and its sync state (nothing queued) goes
    started = await client.post("/panel/sync/subscriptions/cleanup")
    assert started.status_code == 200, started.text
    run_id = started.json()["data"]["run_id"]

    async def finished() -> bool:
        run = (await client.get("/panel/sync/status", params={"run_id": run_id})).json()["run"]
        return run["status"] in ("done", "failed")

    await wait_for(finished)
    run = (await client.get("/panel/sync/status", params={"run_id": run_id})).json()["run"]
    assert (run["status"], run["result"]["orphans"], run["result"]["forgotten"]) == ("done", 1, 1)
    assert _status(panel, state["panel_uuid"]) == "DISABLED"


async def test_reset_trial_disables_the_trials_panel_user(admin, client, panel, make_user, reload, wait_for):
    user = await make_user()
    state = await _subscribed(admin, client, wait_for, user, is_trial=True)
    response = await admin.post(f"{BASE}/{user.id}/reset-trial", json={})
    assert response.status_code == 200, response.text
    assert response.json()["subscription_deleted"] is True
    assert await reload(Subscription, state["id"]) is None
    await wait_for(lambda: _status(panel, state["panel_uuid"]) == "DISABLED")


async def test_hard_delete_disables_the_panel_user(admin, client, panel, make_user, reload, wait_for):
    user = await make_user()
    state = await _subscribed(admin, client, wait_for, user)
    response = await admin.request("DELETE", f"{BASE}/{user.id}", json={"soft_delete": False})
    assert response.status_code == 200, response.text
    assert await reload(User, user.id) is None
    assert await reload(Subscription, state["id"]) is None
    await wait_for(lambda: _status(panel, state["panel_uuid"]) == "DISABLED")


async def test_full_delete_removes_the_panel_user(admin, client, panel, make_user, reload, wait_for, db):
    user = await make_user()
    state = await _subscribed(admin, client, wait_for, user)
    response = await admin.delete(f"{BASE}/{user.id}/full")
    assert response.status_code == 200, response.text
    assert response.json()["deleted_from_panel"] is True
    assert await reload(User, user.id) is None
    assert state["panel_uuid"] not in panel.users
    await _queue_drained(db)  # the queued disable finds the panel user gone: nothing left to do


async def test_full_delete_while_the_panel_is_down_disables_it_once_back(
    admin, client, panel, make_user, reload, wait_for
):
    user = await make_user()
    state = await _subscribed(admin, client, wait_for, user)
    await panel.down()
    response = await admin.delete(f"{BASE}/{user.id}/full")
    assert response.status_code == 200, response.text
    assert (response.json()["deleted_from_panel"], response.json()["deleted_from_bot"]) == (False, True)
    await panel.up()
    await wait_for(lambda: _status(panel, state["panel_uuid"]) == "DISABLED")


async def test_full_delete_keeping_the_panel_user_still_disables_it(
    admin, client, panel, make_user, reload, wait_for
):
    user = await make_user()
    state = await _subscribed(admin, client, wait_for, user)
    body = {"delete_from_panel": False}
    response = await admin.request("DELETE", f"{BASE}/{user.id}/full", json=body)
    assert response.status_code == 200, response.text
    await wait_for(lambda: _status(panel, state["panel_uuid"]) == "DISABLED")


async def test_a_removal_finds_a_panel_user_never_recorded_by_its_name(
    admin, client, panel, make_user, reload, wait_for, db
):
    user = await make_user()
    await panel.down()
    response = await admin.post(f"{BASE}/{user.id}/subscription", json={"action": "create", "days": 30})
    assert response.status_code == 200, response.text
    subscription = await reload(Subscription, response.json()["subscription"]["id"])
    # made in the panel by an attempt whose answer was lost: no uuid recorded here
    made = panel.add_user(f"user_{user.messenger_id}_{subscription.short_id}", telegramId=user.messenger_id)
    reset = await admin.post(f"{BASE}/{user.id}/reset-subscription", json={})
    assert reset.status_code == 200, reset.text
    await panel.up()
    await wait_for(lambda: _status(panel, made["uuid"]) == "DISABLED")
    await _queue_drained(db)
    assert list(panel.users) == [made["uuid"]]  # found, not made again


async def test_a_new_subscription_given_a_removed_ones_id_gets_its_own_panel_user(
    admin, client, panel, make_user, reload, wait_for, db
):
    user = await make_user()
    state = await _subscribed(admin, client, wait_for, user)
    old = dict(panel.users[state["panel_uuid"]])
    await panel.down()
    reset = await admin.post(f"{BASE}/{user.id}/reset-subscription", json={})
    assert reset.status_code == 200, reset.text
    # SQLite gives a new row the highest id again once it is free; played here on both databases
    removed = await reload(Subscription, state["id"]) is None
    assert removed
    now = utcnow()
    async with db.session() as session:
        session.add(
            Subscription(
                id=state["id"],
                user_id=user.id,
                short_id="reused01",
                start_date=now,
                end_date=now + timedelta(days=5),
                created_at=now,
            )
        )
        await session.commit()
    extend = await admin.post(f"{BASE}/{user.id}/subscription", json={"action": "extend", "days": 3})
    assert extend.status_code == 200, extend.text
    await panel.up()

    async def own_user() -> bool:
        found = await _sync_state(client, state["id"])
        return found["panel_sync_status"] == "synced" and found["panel_uuid"] is not None

    await wait_for(own_user)
    new = await _sync_state(client, state["id"])
    assert new["panel_uuid"] != state["panel_uuid"]
    assert panel.users[new["panel_uuid"]]["username"] == f"user_{user.messenger_id}_reused01"
    # the removed subscription's panel user did not become the new one's
    kept = panel.users[state["panel_uuid"]]
    assert (kept["username"], kept["expireAt"]) == (old["username"], old["expireAt"])
