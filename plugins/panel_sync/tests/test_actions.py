"""Resets asked with a change (``panel_actions``) ride the queue: performed after the push,
once, and cleared; OR-ed when queued twice while the panel is down; kept and retried after a
failure; a new account needs none."""

from __future__ import annotations

from subsvc_panel_sync.models import RESET_DEVICES, RESET_TRAFFIC
from subsvc_subscriptions import api as subscriptions

from subsvc.services import services

GIB = 1024**3


async def change_with(app, subscription_id: int, *actions: str) -> None:
    """A paid change of the subscription asking the panel for ``actions`` (as a sale does)."""
    async with services(app).db.session() as session:
        sub = await subscriptions.get(session, subscription_id, for_update=True)
        await subscriptions.extend(session, services(app).events, sub, 1, panel_actions=list(actions))
        await session.commit()


async def synced(states, subscription_id: int):
    found = {s.subscription_id: s for s in await states()}
    state = found.get(subscription_id)
    return state if state is not None and state.status == "synced" else None


def resets(panel, uuid: str) -> tuple[int, int]:
    traffic = panel.count("POST", f"/users/{uuid}/actions/reset-traffic")
    return traffic, panel.count("POST", "/hwid/devices/delete-all")


async def test_resets_are_made_once_after_the_push_and_cleared(
    app, panel, make_subscription, states, wait_for
):
    sub = await make_subscription()
    state = await wait_for(lambda: synced(states, sub["id"]))
    uuid = state.panel_uuid
    assert resets(panel, uuid) == (0, 0)  # a new account: nothing to reset
    panel.users[uuid]["usedTrafficBytes"] = 5 * GIB
    panel.add_device(uuid, "hw-1")
    await change_with(app, sub["id"], "reset_traffic", "reset_devices")
    state = await wait_for(lambda: _done(states, sub["id"]))
    assert (state.pending_actions, state.version, state.synced_version) == (0, 2, 2)
    assert panel.users[uuid]["usedTrafficBytes"] == 0
    assert panel.devices[uuid] == []
    assert resets(panel, uuid) == (1, 1)


async def _done(states, subscription_id):
    state = await synced(states, subscription_id)
    done = state is not None and state.version == state.synced_version and state.version > 1
    return state if done else None


async def test_queued_twice_they_are_or_ed_and_made_once(app, panel, make_subscription, states, wait_for):
    sub = await make_subscription()
    uuid = (await wait_for(lambda: synced(states, sub["id"]))).panel_uuid
    await panel.down()
    await change_with(app, sub["id"], "reset_traffic")
    await change_with(app, sub["id"], "reset_devices")
    await change_with(app, sub["id"], "reset_traffic")
    (state,) = [s for s in await states() if s.subscription_id == sub["id"]]
    assert state.pending_actions == RESET_TRAFFIC | RESET_DEVICES
    await panel.up()
    state = await wait_for(lambda: _done(states, sub["id"]))
    assert state.pending_actions == 0
    assert resets(panel, uuid) == (1, 1)


async def test_a_failed_reset_is_kept_and_retried(app, panel, make_subscription, states, wait_for):
    sub = await make_subscription()
    uuid = (await wait_for(lambda: synced(states, sub["id"]))).panel_uuid
    panel.fail_with(500, times=2, path=f"/users/{uuid}/actions/reset-traffic")
    await change_with(app, sub["id"], "reset_traffic", "reset_devices")
    state = await wait_for(lambda: _done(states, sub["id"]))
    assert state.pending_actions == 0
    traffic, devices = resets(panel, uuid)
    assert traffic == 3  # two failures, then done
    assert devices == 1  # after the traffic: asked once, when the traffic went through
