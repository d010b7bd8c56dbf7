"""Concurrent changes apply one after the other (row locks); real concurrent requests, each on
its own PostgreSQL connection."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from subsvc_subscriptions.models import Subscription, TrafficPurchase

ALREADY = "User already has a subscription. Use replace_existing=true to replace it"
N = 8


@pytest.fixture(autouse=True)
def _postgresql_only(db):
    if db.dialect != "postgresql":
        pytest.skip("row locks are what is tested: SQLite has none (it serialises writers itself)")


async def test_concurrent_creates_for_one_user_make_one_subscription(client, insert_user, rows, outbox):
    user = await insert_user()
    body = {"user_id": user.id, "duration_days": 30}
    responses = await asyncio.gather(*(client.post("/subscriptions", json=body) for _ in range(N)))
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [400] * (N - 1)
    assert all(r.json() == {"detail": ALREADY} for r in responses if r.status_code == 400)
    assert len(await rows(Subscription)) == 1
    assert [p["change"] for _, p in await outbox()] == ["created"]


async def test_concurrent_extends_all_count(client, insert_user, make_subscription, rows):
    subscription = await make_subscription(await insert_user(), end_in=timedelta(days=10))
    url = f"/subscriptions/{subscription.id}/extend"
    responses = await asyncio.gather(*(client.post(url, json={"days": 1}) for _ in range(N)))
    assert {r.status_code for r in responses} == {200}
    [row] = await rows(Subscription)
    assert row.end_date == subscription.end_date + timedelta(days=N)


async def test_concurrent_traffic_and_squads_all_count(client, insert_user, make_subscription, rows, outbox):
    subscription = await make_subscription(await insert_user(), traffic_limit_gb=10, connected_squads=[])
    base = f"/subscriptions/{subscription.id}"
    calls = [client.post(f"{base}/traffic", json={"gb": 5}) for _ in range(N)]
    calls += [client.post(f"{base}/squads", json={"squad_uuid": f"squad-{i}"}) for i in range(N)]
    responses = await asyncio.gather(*calls)
    assert {r.status_code for r in responses} == {200}
    [row] = await rows(Subscription)
    assert (row.traffic_limit_gb, row.purchased_traffic_gb) == (10 + 5 * N, 5 * N)
    assert sorted(row.connected_squads) == sorted(f"squad-{i}" for i in range(N))
    assert len(await rows(TrafficPurchase)) == N
    assert len(await outbox()) == 2 * N
