"""Subscription changes reach the panel: created, extended, more devices, disabled; while
the panel is down they wait (``failed`` with the error, retried) and are applied exactly
once when it is back; nothing is lost across a restart."""

from __future__ import annotations

from datetime import datetime

import pytest
from subsvc_panel_sync.mapping import GIB
from subsvc_subscriptions.models import Subscription


def panel_users(panel, messenger_id):
    return panel.users_of_messenger_id(messenger_id)


def creations(panel) -> int:
    return panel.count("POST", "/users") - sum(
        1 for m, p in panel.requests if m == "POST" and "/actions/" in p
    )


async def state(client, subscription_id):
    response = await client.get(f"/panel/sync/subscriptions/{subscription_id}")
    assert response.status_code == 200, response.text
    return response.json()


async def test_a_new_subscription_becomes_a_panel_user(client, panel, make_subscription, wait_for, rows):
    sub = await make_subscription(period_days=30, traffic_limit_gb=50, device_limit=2)
    await wait_for(lambda: panel_users(panel, sub["messenger_id"]))
    (user,) = panel_users(panel, sub["messenger_id"])
    (row,) = await rows(Subscription, id=sub["id"])
    assert user["username"] == f"user_{sub['messenger_id']}_{row.short_id}"
    assert user["status"] == "ACTIVE"
    assert user["trafficLimitBytes"] == 50 * GIB
    assert user["hwidDeviceLimit"] == 2
    assert datetime.fromisoformat(user["expireAt"]) == datetime.fromisoformat(sub["end_date"])
    found = await wait_for(lambda: _synced(client, sub["id"]))
    assert found["panel_uuid"] == user["uuid"] and found["panel_sync_error"] is None
    assert found["panel_synced_at"] is not None

    async def flagged() -> bool:  # the subscription's own flag follows, in its own transaction
        (row,) = await rows(Subscription, id=sub["id"])
        return row.panel_sync_state == "synced"

    await wait_for(flagged)


async def test_the_panel_links_are_written_back_after_a_push(
    client, panel, make_subscription, wait_for, rows
):
    sub = await make_subscription()
    assert sub["subscription_url"] is None  # nothing before the panel made the account
    found = await wait_for(lambda: _synced(client, sub["id"]))
    user = panel.users[found["panel_uuid"]]

    async def linked():
        (row,) = await rows(Subscription, id=sub["id"])
        return row if row.subscription_url is not None else None

    row = await wait_for(linked)
    assert row.subscription_url == user["subscriptionUrl"]
    assert row.subscription_crypto_link == user["happ"]["cryptoLink"]
    record = (await client.get(f"/subscriptions/{sub['id']}")).json()
    assert record["subscription_url"] == user["subscriptionUrl"]
    patches = panel.count("PATCH", "/users")
    assert (await client.post(f"/subscriptions/{sub['id']}/extend", json={"days": 1})).status_code == 200
    await wait_for(lambda: panel.count("PATCH", "/users") == patches + 1)
    await wait_for(lambda: _synced(client, sub["id"]))
    (again,) = await rows(Subscription, id=sub["id"])
    assert again.subscription_url == user["subscriptionUrl"]  # the link stays


async def _synced(client, subscription_id):
    found = await state(client, subscription_id)
    return found if found["panel_sync_status"] == "synced" else None


async def test_changes_update_the_same_panel_user_and_deletion_disables_it(
    client, panel, make_subscription, wait_for
):
    sub = await make_subscription(period_days=10)
    first = await wait_for(lambda: _synced(client, sub["id"]))
    assert (await client.post(f"/subscriptions/{sub['id']}/extend", json={"days": 5})).status_code == 200
    extended = (await client.get(f"/subscriptions/{sub['id']}")).json()
    await wait_for(
        lambda: (
            datetime.fromisoformat(panel.users[first["panel_uuid"]]["expireAt"])
            == datetime.fromisoformat(extended["end_date"])
        )
    )
    assert (await client.post(f"/subscriptions/{sub['id']}/devices", json={"devices": 3})).status_code == 200
    await wait_for(lambda: panel.users[first["panel_uuid"]]["hwidDeviceLimit"] == 5)
    assert (await client.delete(f"/subscriptions/{sub['id']}")).status_code == 200
    await wait_for(lambda: panel.users[first["panel_uuid"]]["status"] == "DISABLED")
    await wait_for(lambda: _synced(client, sub["id"]))
    assert len(panel_users(panel, sub["messenger_id"])) == 1
    assert creations(panel) == 1
    assert panel.count("PATCH", "/users") == 3  # one update per change, by uuid


async def test_unknown_subscription_is_404(client):
    response = await client.get("/panel/sync/subscriptions/999999")
    assert response.status_code == 404
    assert response.json() == {"detail": "Subscription not found"}


async def test_while_the_panel_is_down_changes_wait_and_then_apply_once(
    client, panel, make_subscription, wait_for, states
):
    await panel.down()
    subs = [await make_subscription(period_days=7) for _ in range(3)]
    for sub in subs:  # the API answers as usual
        response = await client.post(f"/subscriptions/{sub['id']}/extend", json={"days": 3})
        assert response.status_code == 200
    for sub in subs:
        failed = await wait_for(lambda sub=sub: _status_is(client, sub["id"], "failed"))
        assert failed["attempts"] >= 1
        assert "cannot connect" in failed["panel_sync_error"]
        await wait_for(lambda sub=sub: _record_shows(client, sub["id"], "failed"))  # the record says so too
    overview = (await client.get("/panel/sync/status")).json()
    assert overview["queue"]["failed"] == 3
    await panel.up()
    for sub in subs:
        await wait_for(lambda sub=sub: _synced(client, sub["id"]))
        await wait_for(lambda sub=sub: _record_shows(client, sub["id"], "synced"))
    for sub in subs:
        (user,) = panel_users(panel, sub["messenger_id"])
        end = (await client.get(f"/subscriptions/{sub['id']}")).json()["end_date"]
        assert datetime.fromisoformat(user["expireAt"]) == datetime.fromisoformat(end)
    assert creations(panel) == 3  # one creation per subscription, the changes folded into it
    assert panel.count("PATCH", "/users") == 0
    states = await states()
    assert {s.status for s in states} == {"synced"}
    assert all(s.synced_version == s.version for s in states)


async def _record_shows(client, subscription_id, wanted):
    """The subscription's own record (``GET /subscriptions/{id}``) shows this sync state."""
    record = (await client.get(f"/subscriptions/{subscription_id}")).json()
    return record["panel_sync_state"] == wanted


async def _status_is(client, subscription_id, wanted):
    found = await state(client, subscription_id)
    return found if found["panel_sync_status"] == wanted else None


async def test_panel_errors_are_retried_until_it_answers(client, panel, make_subscription, wait_for):
    panel.fail_with(500, times=3, path="/users")
    sub = await make_subscription()
    found = await wait_for(lambda: _synced(client, sub["id"]))
    assert found["attempts"] == 0  # reset once it went through
    assert len(panel_users(panel, sub["messenger_id"])) == 1


@pytest.mark.no_panel
async def test_queued_changes_survive_a_restart(
    client, panel, make_subscription, wait_for, another_app, states, monkeypatch
):
    # the first app has no panel configured: the changes are queued, nothing is sent
    subs = [await make_subscription() for _ in range(2)]
    assert (await client.post(f"/subscriptions/{subs[0]['id']}/traffic", json={"gb": 10})).status_code == 200
    assert {s.status for s in await states()} == {"pending"}
    for name, value in panel.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PANEL_MAX_RETRIES", "0")
    await panel.down()
    async with another_app():  # a second process starts while the panel is down, then stops
        await wait_for(lambda: _all(states, "failed"))
    assert panel.requests == []
    await panel.up()
    async with another_app():  # after the restart everything goes through, once
        await wait_for(lambda: _all(states, "synced"))
    assert creations(panel) == 2
    (user,) = panel_users(panel, subs[0]["messenger_id"])
    assert user["trafficLimitBytes"] == 60 * GIB


async def _all(states, status):
    states = await states()
    return len(states) == 2 and {s.status for s in states} == {status}
