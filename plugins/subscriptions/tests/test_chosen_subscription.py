"""Release 4.1.0: `subscription_id` names which of the user's subscriptions an order replaces
(`POST /subscriptions`, `POST` and `PATCH /users/{user_id}/subscription`)."""

from __future__ import annotations

import pytest
from subsvc_subscriptions.models import Subscription


@pytest.mark.parametrize("method", ["POST", "PATCH"])
async def test_the_named_subscription_is_replaced(client, insert_user, make_subscription, reload, method):
    user = await insert_user()
    older = await make_subscription(user, traffic_limit_gb=5)
    newer = await make_subscription(user, traffic_limit_gb=6)
    body = {"duration_days": 7, "traffic_limit_gb": 70, "replace_existing": True, "subscription_id": older.id}
    r = await client.request(method, f"/users/{user.id}/subscription", json=body)
    assert r.status_code == 201, r.text
    assert (await reload(Subscription, older.id)).traffic_limit_gb == 70
    assert (await reload(Subscription, newer.id)).traffic_limit_gb == 6
    assert {s["id"] for s in r.json()["subscriptions"]} == {older.id, newer.id}


async def test_post_subscriptions_takes_it_too(client, insert_user, make_subscription, reload):
    user = await insert_user()
    older = await make_subscription(user)
    await make_subscription(user)
    body = {"user_id": user.id, "duration_days": 3, "device_limit": 4, "replace_existing": True}
    r = await client.post("/subscriptions", json={**body, "subscription_id": older.id})
    assert (r.status_code, r.json()["id"], r.json()["device_limit"]) == (201, older.id, 4)


@pytest.mark.parametrize("method", ["POST", "PATCH"])
async def test_another_users_subscription_is_404_and_unchanged(
    client, insert_user, make_subscription, reload, method
):
    user, stranger = await insert_user(), await insert_user()
    await make_subscription(user)
    theirs = await make_subscription(stranger, traffic_limit_gb=9)
    body = {
        "duration_days": 7,
        "traffic_limit_gb": 70,
        "replace_existing": True,
        "subscription_id": theirs.id,
    }
    r = await client.request(method, f"/users/{user.id}/subscription", json=body)
    assert (r.status_code, r.json()) == (404, {"detail": "Subscription not found"})
    r = await client.post("/subscriptions", json={**body, "user_id": user.id, "subscription_id": 999_999})
    assert (r.status_code, r.json()) == (404, {"detail": "Subscription not found"})
    assert (await reload(Subscription, theirs.id)).traffic_limit_gb == 9


async def test_without_replace_existing_the_named_one_is_still_refused(
    client, insert_user, make_subscription
):
    user = await insert_user()
    mine = await make_subscription(user)
    body = {"duration_days": 7, "subscription_id": mine.id}
    r = await client.patch(f"/users/{user.id}/subscription", json=body)
    assert r.status_code == 400
