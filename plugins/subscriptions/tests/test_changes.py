"""Changes of one subscription: extend, traffic, devices, squads, soft delete."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from subsvc_subscriptions.models import Subscription, TrafficPurchase

from subsvc.db import utcnow


async def _row(rows, subscription_id: int) -> Subscription:
    [row] = await rows(Subscription, id=subscription_id)
    return row


def _close(a, b, seconds: float = 30) -> bool:
    return abs((a - b).total_seconds()) <= seconds


# --- extend --------------------------------------------------------------------------------------


async def test_extend_adds_to_an_end_still_ahead(client, insert_user, make_subscription, rows, utc_time):
    user = await insert_user()
    subscription = await make_subscription(user, end_in=timedelta(days=10))
    r = await client.post(f"/subscriptions/{subscription.id}/extend", json={"days": 5})
    assert r.status_code == 200
    expected = subscription.end_date + timedelta(days=5)
    assert utc_time(r.json()["end_date"]) == expected
    row = await _row(rows, subscription.id)
    assert row.end_date == expected and row.status == "active" and row.panel_sync_state == "pending"


async def test_extend_counts_from_now_when_the_end_has_passed(
    client, insert_user, make_subscription, utc_time
):
    user = await insert_user()
    subscription = await make_subscription(user, status="expired", end_in=timedelta(days=-10))
    r = await client.post(f"/subscriptions/{subscription.id}/extend", json={"days": 5})
    body = r.json()
    assert _close(utc_time(body["end_date"]), utcnow() + timedelta(days=5))
    assert (body["status"], body["actual_status"]) == ("active", "active")


@pytest.mark.parametrize(
    ("stored", "after"),
    [
        ("expired", "active"),
        ("disabled", "active"),
        ("limited", "active"),
        ("trial", "active"),
        ("active", "active"),
        ("pending", "pending"),
    ],
)
async def test_extend_reactivates(client, insert_user, make_subscription, rows, stored, after):
    user = await insert_user()
    subscription = await make_subscription(user, status=stored, end_in=timedelta(days=1))
    r = await client.post(f"/subscriptions/{subscription.id}/extend", json={"days": 1})
    assert r.status_code == 200 and r.json()["status"] == after
    assert (await _row(rows, subscription.id)).status == after


# --- traffic -------------------------------------------------------------------------------------


async def test_traffic_is_added_and_recorded(client, insert_user, make_subscription, rows, outbox, configure):
    configure(TRAFFIC_PURCHASE_DAYS=30)
    user = await insert_user()
    subscription = await make_subscription(user, traffic_limit_gb=50)
    r = await client.post(f"/subscriptions/{subscription.id}/traffic", json={"gb": 20})
    assert r.status_code == 200 and r.json()["traffic_limit_gb"] == 70
    r = await client.post(f"/subscriptions/{subscription.id}/traffic", json={"gb": 5})
    assert r.json()["traffic_limit_gb"] == 75
    row = await _row(rows, subscription.id)
    assert (row.traffic_limit_gb, row.purchased_traffic_gb, row.panel_sync_state) == (75, 25, "pending")
    purchases = await rows(TrafficPurchase)
    assert [(p.subscription_id, p.traffic_gb) for p in purchases] == [
        (subscription.id, 20),
        (subscription.id, 5),
    ]
    assert all(_close(p.expires_at, utcnow() + timedelta(days=30)) for p in purchases)
    assert [(p["change"], p["traffic_limit_gb"]) for _, p in await outbox()] == [
        ("traffic", 70),
        ("traffic", 75),
    ]


async def test_traffic_on_unlimited_is_a_no_op(client, insert_user, make_subscription, rows, outbox):
    user = await insert_user()
    subscription = await make_subscription(user, traffic_limit_gb=0, status="disabled")
    r = await client.post(f"/subscriptions/{subscription.id}/traffic", json={"gb": 20})
    assert r.status_code == 200
    assert (r.json()["traffic_limit_gb"], r.json()["status"]) == (0, "disabled")
    row = await _row(rows, subscription.id)
    assert (row.traffic_limit_gb, row.purchased_traffic_gb, row.panel_sync_state) == (0, 0, "synced")
    assert row.updated_at == subscription.updated_at
    assert await rows(TrafficPurchase) == [] and await outbox() == []


@pytest.mark.parametrize(
    ("stored", "end_in", "after"),
    [
        ("disabled", timedelta(days=3), "active"),
        ("expired", timedelta(days=3), "active"),
        ("limited", timedelta(days=3), "active"),
        ("disabled", timedelta(days=-3), "disabled"),
        ("limited", timedelta(days=-3), "limited"),
        ("pending", timedelta(days=3), "pending"),
        ("trial", timedelta(days=3), "trial"),
    ],
)
@pytest.mark.parametrize("addon", ["traffic", "devices"])
async def test_addons_reactivate_a_subscription_whose_end_is_ahead(
    client, insert_user, make_subscription, rows, addon, stored, end_in, after
):
    user = await insert_user()
    subscription = await make_subscription(user, status=stored, end_in=end_in)
    body = {"gb": 1} if addon == "traffic" else {"devices": 1}
    r = await client.post(f"/subscriptions/{subscription.id}/{addon}", json=body)
    assert r.status_code == 200 and r.json()["status"] == after
    assert (await _row(rows, subscription.id)).status == after


# --- devices -------------------------------------------------------------------------------------


async def test_devices_are_added(client, insert_user, make_subscription, rows, outbox):
    user = await insert_user()
    subscription = await make_subscription(user, device_limit=2)
    r = await client.post(f"/subscriptions/{subscription.id}/devices", json={"devices": 3})
    assert r.status_code == 200 and r.json()["device_limit"] == 5
    assert (await _row(rows, subscription.id)).device_limit == 5
    assert [(p["change"], p["device_limit"]) for _, p in await outbox()] == [("devices", 5)]


async def test_devices_are_capped_by_max_devices_limit(
    client, insert_user, make_subscription, rows, outbox, configure
):
    configure(MAX_DEVICES_LIMIT=4)
    user = await insert_user()
    subscription = await make_subscription(user, device_limit=2)
    r = await client.post(f"/subscriptions/{subscription.id}/devices", json={"devices": 10})
    assert r.json()["device_limit"] == 4
    # at the cap already: nothing changes, no event
    r = await client.post(f"/subscriptions/{subscription.id}/devices", json={"devices": 1})
    assert r.status_code == 200 and r.json()["device_limit"] == 4
    assert [p["device_limit"] for _, p in await outbox()] == [4]
    # a limit above the cap (set otherwise) is never lowered by adding devices
    above = await make_subscription(await insert_user(), device_limit=6)
    r = await client.post(f"/subscriptions/{above.id}/devices", json={"devices": 1})
    assert r.json()["device_limit"] == 6


async def test_devices_without_a_cap(client, insert_user, make_subscription, configure):
    configure(MAX_DEVICES_LIMIT=0)
    subscription = await make_subscription(await insert_user(), device_limit=9000)
    r = await client.post(f"/subscriptions/{subscription.id}/devices", json={"devices": 10_000})
    assert r.json()["device_limit"] == 19_000


# --- squads --------------------------------------------------------------------------------------


async def test_squads_are_added_once_and_removed(client, insert_user, make_subscription, rows, outbox):
    user = await insert_user()
    subscription = await make_subscription(user, connected_squads=["a"])
    url = f"/subscriptions/{subscription.id}/squads"
    r = await client.post(url, json={"squad_uuid": "b"})
    assert r.status_code == 200 and r.json()["connected_squads"] == ["a", "b"]
    r = await client.post(url, json={"squad_uuid": "b"})
    assert r.status_code == 200 and r.json()["connected_squads"] == ["a", "b"]
    r = await client.delete(f"{url}/a")
    assert r.status_code == 200 and r.json()["connected_squads"] == ["b"]
    r = await client.delete(f"{url}/not-there")
    assert r.status_code == 200 and r.json()["connected_squads"] == ["b"]
    assert (await _row(rows, subscription.id)).connected_squads == ["b"]
    changes = [(p["change"], p["connected_squads"]) for _, p in await outbox()]
    assert changes == [("squads", ["a", "b"]), ("squads", ["b"])]


@pytest.mark.parametrize("squad", ["", "   "])
async def test_empty_squad_is_400(client, insert_user, make_subscription, rows, outbox, squad):
    subscription = await make_subscription(await insert_user(), connected_squads=["a"])
    r = await client.post(f"/subscriptions/{subscription.id}/squads", json={"squad_uuid": squad})
    assert r.status_code == 400
    assert r.json() == {"detail": "squad_uuid is required"}
    assert (await _row(rows, subscription.id)).connected_squads == ["a"]
    assert await outbox() == []


# --- soft delete ---------------------------------------------------------------------------------


async def test_delete_is_soft(client, insert_user, make_subscription, rows, outbox):
    user = await insert_user()
    subscription = await make_subscription(user)
    r = await client.delete(f"/subscriptions/{subscription.id}")
    assert r.status_code == 200
    body = r.json()
    assert body["id"] == subscription.id
    assert (body["status"], body["actual_status"]) == ("disabled", "disabled")
    row = await _row(rows, subscription.id)
    assert (row.status, row.panel_sync_state) == ("disabled", "pending")
    # again: still 200, nothing more to do
    assert (await client.delete(f"/subscriptions/{subscription.id}")).status_code == 200
    assert [p["change"] for _, p in await outbox()] == ["disabled"]
    assert (await client.get(f"/subscriptions/{subscription.id}")).json()["status"] == "disabled"


# --- out of range --------------------------------------------------------------------------------


async def test_changes_that_would_leave_the_range_are_400(
    client, insert_user, make_subscription, rows, outbox
):
    far = datetime(9990, 1, 1, tzinfo=UTC) - utcnow()
    subscription = await make_subscription(
        await insert_user(), end_in=far, traffic_limit_gb=2**31 - 10, device_limit=2**31 - 5
    )
    base = f"/subscriptions/{subscription.id}"
    refusals = [
        (f"{base}/extend", {"days": 36_500}, "The subscription's end date would be out of range"),
        (f"{base}/traffic", {"gb": 1_000}, "The traffic limit would be out of range"),
        (f"{base}/devices", {"devices": 10}, "The device limit would be out of range"),
    ]
    for path, body, text in refusals:
        r = await client.post(path, json=body)
        assert r.status_code == 400 and r.json() == {"detail": text}
    row = await _row(rows, subscription.id)
    assert (row.end_date, row.traffic_limit_gb, row.device_limit) == (
        subscription.end_date,
        2**31 - 10,
        2**31 - 5,
    )
    assert await rows(TrafficPurchase) == [] and await outbox() == []
