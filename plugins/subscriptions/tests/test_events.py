"""`subscription.changed`: declared, written with the change, dispatched only when committed."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from subsvc_subscriptions import service
from subsvc_subscriptions.models import Subscription
from subsvc_subscriptions.schemas import SubscriptionChanged

from subsvc.events import Event


async def _wait_for(predicate, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if predicate():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not met in time")


def test_the_event_type_is_declared(app):
    assert app.state.events.catalogue["subscription.changed"] is SubscriptionChanged


async def test_created_payload(client, insert_user, outbox, rows, utc_time):
    user = await insert_user()
    r = await client.post(
        "/subscriptions",
        json={
            "user_id": user.id,
            "duration_days": 30,
            "traffic_limit_gb": 50,
            "device_limit": 3,
            "squad_uuid": "s",
        },
    )
    body = r.json()
    [row] = await rows(Subscription)
    [(event_type, payload)] = await outbox()
    assert event_type == "subscription.changed"
    assert utc_time(payload.pop("end_date")) == utc_time(body["end_date"])
    assert payload == {
        "subscription_id": body["id"],
        "user_id": user.id,
        "change": "created",
        "status": "active",
        "is_trial": False,
        "traffic_limit_gb": 50,
        "device_limit": 3,
        "connected_squads": ["s"],
        "short_id": row.short_id,
        "panel_actions": [],
    }


async def test_every_change_publishes_one_event(client, insert_user, outbox, rows):
    user = await insert_user()
    sid = (await client.post("/subscriptions", json={"user_id": user.id, "is_trial": True})).json()["id"]
    calls = [
        ("POST", f"/subscriptions/{sid}/extend", {"days": 3}),
        ("POST", f"/subscriptions/{sid}/traffic", {"gb": 5}),
        ("POST", f"/subscriptions/{sid}/devices", {"devices": 1}),
        ("POST", f"/subscriptions/{sid}/squads", {"squad_uuid": "x"}),
        ("DELETE", f"/subscriptions/{sid}/squads/x", None),
        ("DELETE", f"/subscriptions/{sid}", None),
        ("POST", "/subscriptions", {"user_id": user.id, "duration_days": 9, "replace_existing": True}),
        ("DELETE", f"/users/{user.id}/subscription", None),
    ]
    for method, path, body in calls:
        r = await client.request(method, path, json=body)
        assert r.status_code in (200, 201), (path, r.text)
    events = await outbox()
    assert {event_type for event_type, _ in events} == {"subscription.changed"}
    assert [p["change"] for _, p in events] == [
        "created",
        "extended",
        "traffic",
        "devices",
        "squads",
        "squads",
        "disabled",
        "replaced",
        "disabled",
    ]
    assert {p["subscription_id"] for _, p in events} == {sid}
    assert [p["status"] for _, p in events][-3:] == ["disabled", "active", "disabled"]


async def test_refused_changes_publish_nothing(client, insert_user, make_subscription, outbox):
    user = await insert_user()
    subscription = await make_subscription(user)
    refused = [
        ("/subscriptions", {"user_id": user.id, "duration_days": 5}),  # 400: has one
        ("/subscriptions", {"user_id": user.id}),  # 400: paid without days
        ("/subscriptions", {"user_id": 999_999, "is_trial": True}),  # 404
        (f"/subscriptions/{subscription.id}/squads", {"squad_uuid": " "}),  # 400
        (f"/subscriptions/{subscription.id}/extend", {"days": 0}),  # 422
    ]
    for path, body in refused:
        assert (await client.post(path, json=body)).status_code in (400, 404, 422)
    assert await outbox() == []


async def test_a_rolled_back_change_leaves_no_event(app, db, insert_user, make_subscription, outbox, rows):
    received: list[Event] = []
    app.state.events.subscribe("subscription.changed", received.append)
    subscription = await make_subscription(await insert_user(), end_in=timedelta(days=2))
    async with db.session() as session:
        row = await service.get(session, subscription.id, for_update=True)
        await service.extend(session, app.state.events, row, 10)
        await service.disable(session, app.state.events, row)
        await session.rollback()
    await asyncio.sleep(0.2)
    assert await outbox() == [] and received == []
    [stored] = await rows(Subscription)
    assert (stored.status, stored.end_date) == ("active", subscription.end_date)


async def test_committed_changes_reach_subscribers(app, client, insert_user, make_subscription):
    received: list[Event] = []
    app.state.events.subscribe("subscription.changed", received.append)
    subscription = await make_subscription(await insert_user())
    assert (
        await client.post(f"/subscriptions/{subscription.id}/extend", json={"days": 1})
    ).status_code == 200
    await _wait_for(lambda: received)
    [item] = received
    assert item.type == "subscription.changed"
    assert (item.payload["subscription_id"], item.payload["change"]) == (subscription.id, "extended")
