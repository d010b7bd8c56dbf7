"""The subscription's devices against the fake panel: listed with their names, deleted one by
one or all at once (at once, in the panel), named for every subscription of the user; what the
answers are while the panel is down, not configured, or has no account yet."""

from __future__ import annotations

import pytest
from sqlmodel import select
from subsvc_addons.models import DeviceName

DEVICES = "/cabinet/subscription/devices"


async def test_the_list_shows_the_panels_devices_and_the_users_names(cabinet, subscriber, fake_panel):
    me = await subscriber()
    fake_panel.add_device(me.account["uuid"], "hw-a", platform="iOS", deviceModel="iPhone 15")
    fake_panel.add_device(me.account["uuid"], "hw-b")
    async with cabinet(me.user.id) as http:
        renamed = await http.patch(f"{DEVICES}/hw-a/name", json={"name": "  Work phone  "})
        assert renamed.status_code == 200
        assert renamed.json() == {"hwid": "hw-a", "local_name": "Work phone"}
        found = (await http.get(DEVICES)).json()
    assert found["total"] == 2 and found["device_limit"] == 3
    first, second = found["devices"]
    assert first | {"created_at": None} == {
        "hwid": "hw-a",
        "platform": "iOS",
        "device_model": "iPhone 15",
        "created_at": None,
        "local_name": "Work phone",
    }
    assert first["created_at"]  # the panel's time
    assert (second["hwid"], second["local_name"]) == ("hw-b", None)


async def test_no_account_a_failing_panel_or_none_list_nothing(cabinet, subscriber, fake_panel):
    me = await subscriber(account=False)
    async with cabinet(me.user.id) as http:
        assert (await http.get(DEVICES)).json() == {"devices": [], "total": 0, "device_limit": 3}
        other = await subscriber()
        fake_panel.add_device(other.account["uuid"], "hw-x")
        async with cabinet(other.user.id) as theirs:
            await fake_panel.down()
            listed = await theirs.get(DEVICES)
            assert (listed.status_code, listed.json()["devices"]) == (200, [])
            await fake_panel.up()
            assert [d["hwid"] for d in (await theirs.get(DEVICES)).json()["devices"]] == ["hw-x"]


@pytest.mark.no_panel
async def test_without_a_panel_the_list_is_empty_and_changes_are_503(cabinet, subscriber):
    me = await subscriber()
    async with cabinet(me.user.id) as http:
        assert (await http.get(DEVICES)).json()["devices"] == []
        refused = await http.delete(f"{DEVICES}/hw-a")
        assert (refused.status_code, refused.json()) == (503, {"detail": "VPN panel is not configured"})


async def test_no_subscription_is_404(cabinet, make_user, subscriber):
    lonely = await make_user()
    someone = await subscriber()
    async with cabinet(lonely.id) as http:
        for response in (
            await http.get(DEVICES),
            await http.delete(DEVICES),
            await http.delete(f"{DEVICES}/hw"),
            await http.patch(f"{DEVICES}/hw/name", json={"name": "x"}),
            await http.get(DEVICES, params={"subscription_id": someone.subscription.id}),  # not theirs
        ):
            assert (response.status_code, response.json()) == (404, {"detail": "No subscription found"})


async def test_deleting_one_device(cabinet, subscriber, fake_panel):
    me = await subscriber()
    fake_panel.add_device(me.account["uuid"], "hw-a")
    fake_panel.add_device(me.account["uuid"], "hw-b")
    async with cabinet(me.user.id) as http:
        deleted = await http.delete(f"{DEVICES}/hw-a")
        assert deleted.status_code == 200
        assert deleted.json() == {
            "success": True,
            "message": "Device deleted successfully",
            "deleted_hwid": "hw-a",
        }
        assert [d["hwid"] for d in fake_panel.devices[me.account["uuid"]]] == ["hw-b"]
        unknown = await http.delete(f"{DEVICES}/hw-a")
        assert (unknown.status_code, unknown.json()) == (404, {"detail": "Device not found"})
        await fake_panel.down()
        down = await http.delete(f"{DEVICES}/hw-b")
        assert down.status_code == 502 and down.json()["detail"].startswith("VPN panel error: cannot connect")
        await fake_panel.up()
        fake_panel.fail_with(500, times=1, path="/hwid/devices/delete")
        failing = await http.delete(f"{DEVICES}/hw-b")
        assert failing.status_code == 502
    assert [d["hwid"] for d in fake_panel.devices[me.account["uuid"]]] == ["hw-b"]


async def test_without_an_account_deleting_is_400(cabinet, subscriber):
    me = await subscriber(account=False)
    async with cabinet(me.user.id) as http:
        for response in (await http.delete(f"{DEVICES}/hw-a"), await http.delete(DEVICES)):
            assert (response.status_code, response.json()) == (400, {"detail": "Panel user not found"})


async def test_deleting_every_device(cabinet, subscriber, fake_panel):
    me = await subscriber()
    for hwid in ("hw-a", "hw-b", "hw-c"):
        fake_panel.add_device(me.account["uuid"], hwid)
    async with cabinet(me.user.id) as http:
        deleted = await http.delete(DEVICES)
        assert deleted.json() == {"success": True, "message": "Deleted 3 devices", "deleted_count": 3}
        assert fake_panel.devices[me.account["uuid"]] == []
        again = await http.delete(DEVICES)
        assert again.json() == {"success": True, "message": "No devices to delete", "deleted_count": 0}
    assert fake_panel.count("POST", "/hwid/devices/delete-all") == 1  # nothing to delete: not asked


async def test_the_account_is_found_by_the_recorded_uuid_first(cabinet, subscriber, fake_panel, db):
    from subsvc_panel_sync.models import PanelSyncState

    me = await subscriber(account=False)
    renamed = fake_panel.add_user("someone_else_named_it", telegramId=me.user.messenger_id)
    fake_panel.add_device(renamed["uuid"], "hw-r")
    async with db.session() as session:
        session.add(
            PanelSyncState(
                subscription_id=me.subscription.id,
                user_id=me.user.id,
                short_id=me.subscription.short_id,
                status="synced",
                panel_uuid=renamed["uuid"],
            )
        )
        await session.commit()
    async with cabinet(me.user.id) as http:
        assert [d["hwid"] for d in (await http.get(DEVICES)).json()["devices"]] == ["hw-r"]


async def test_names_are_shared_by_the_users_subscriptions_and_cleared(cabinet, subscriber, fake_panel, db):
    me = await subscriber()
    second = await subscriber(user=me.user)
    fake_panel.add_device(me.account["uuid"], "hw-a")
    fake_panel.add_device(second.account["uuid"], "hw-a")
    stranger = await subscriber()
    fake_panel.add_device(stranger.account["uuid"], "hw-a")
    async with cabinet(me.user.id) as http:
        long = "x" * 80
        named = await http.patch(
            f"{DEVICES}/hw-a/name", json={"name": long}, params={"subscription_id": me.subscription.id}
        )
        assert named.json()["local_name"] == "x" * 64  # at most 64 characters are kept
        listed = await http.get(DEVICES, params={"subscription_id": second.subscription.id})
        assert listed.json()["devices"][0]["local_name"] == "x" * 64
        for cleared in (None, "", "   "):
            await http.patch(f"{DEVICES}/hw-a/name", json={"name": "again"})
            answer = await http.patch(f"{DEVICES}/hw-a/name", json={"name": cleared})
            assert answer.json() == {"hwid": "hw-a", "local_name": None}
        async with db.session() as session:
            assert (await session.exec(select(DeviceName))).all() == []
        await http.patch(f"{DEVICES}/hw-a/name", json={})  # no name: cleared too
        too_long = await http.patch(f"{DEVICES}/{'h' * 256}/name", json={"name": "x"})
        assert too_long.status_code == 422
    async with cabinet(stranger.user.id) as http:
        assert (await http.get(DEVICES)).json()["devices"][0]["local_name"] is None
