"""Reading: the list (filters, order, window), one subscription, and actual_status."""

from __future__ import annotations

from datetime import timedelta

import pytest
from subsvc_subscriptions.service import actual_status

from subsvc.db import utcnow

FIELDS = [  # in the order the record's JSON has them (clients may depend on it)
    "id",
    "user_id",
    "status",
    "actual_status",
    "is_trial",
    "start_date",
    "end_date",
    "traffic_limit_gb",
    "traffic_used_gb",
    "device_limit",
    "autopay_enabled",
    "autopay_days_before",
    "subscription_url",
    "subscription_crypto_link",
    "connected_squads",
    "panel_sync_state",
    "created_at",
    "updated_at",
]


@pytest.mark.parametrize(
    ("stored", "end_in", "expected"),
    [
        ("active", timedelta(days=1), "active"),
        ("active", timedelta(days=-1), "expired"),
        ("active", None, "expired"),
        ("trial", timedelta(days=1), "trial"),
        ("trial", timedelta(seconds=-1), "expired"),
        ("trial", None, "expired"),
        ("expired", timedelta(days=5), "expired"),
        ("disabled", timedelta(days=5), "disabled"),
        ("disabled", timedelta(days=-5), "disabled"),
        ("limited", timedelta(days=5), "limited"),
        ("limited", timedelta(days=-5), "limited"),
        ("pending", timedelta(days=5), "pending"),
        ("pending", timedelta(days=-5), "pending"),
    ],
)
def test_actual_status_rules(stored, end_in, expected):
    now = utcnow()
    assert actual_status(stored, None if end_in is None else now + end_in, now) == expected


def test_actual_status_at_the_exact_end_is_expired():
    now = utcnow()
    assert actual_status("active", now, now) == "expired"


@pytest.mark.parametrize(
    ("stored", "end_in", "expected"),
    [
        ("active", timedelta(days=1), "active"),
        ("active", timedelta(days=-1), "expired"),
        ("trial", timedelta(days=1), "trial"),
        ("trial", timedelta(days=-1), "expired"),
        ("expired", timedelta(days=1), "expired"),
        ("disabled", timedelta(days=1), "disabled"),
        ("limited", timedelta(days=-1), "limited"),
        ("pending", timedelta(days=-1), "pending"),
    ],
)
async def test_actual_status_on_read(client, insert_user, make_subscription, stored, end_in, expected):
    subscription = await make_subscription(await insert_user(), status=stored, end_in=end_in)
    body = (await client.get(f"/subscriptions/{subscription.id}")).json()
    assert (body["status"], body["actual_status"]) == (stored, expected)
    [listed] = (await client.get("/subscriptions")).json()
    assert listed["actual_status"] == expected


async def test_get_answers_the_record(client, insert_user, make_subscription, utc_time):
    user = await insert_user()
    subscription = await make_subscription(
        user, connected_squads=["s1"], traffic_used_gb=1.5, autopay_enabled=True
    )
    r = await client.get(f"/subscriptions/{subscription.id}")
    assert r.status_code == 200
    body = r.json()
    assert list(body) == FIELDS
    assert body["id"] == subscription.id and body["user_id"] == user.id
    assert body["connected_squads"] == ["s1"] and body["traffic_used_gb"] == 1.5
    assert body["autopay_enabled"] is True
    assert utc_time(body["end_date"]) == subscription.end_date
    assert utc_time(body["created_at"]) <= utc_time(body["updated_at"])
    assert utc_time(body["start_date"]) < utc_time(body["end_date"])


async def test_list_is_a_bare_array_newest_first_with_a_window(client, insert_user, make_subscription):
    user = await insert_user()
    base = utcnow() - timedelta(hours=1)
    made = [await make_subscription(user, created_at=base + timedelta(minutes=i)) for i in range(5)]
    r = await client.get("/subscriptions")
    assert r.status_code == 200
    assert [item["id"] for item in r.json()] == [s.id for s in reversed(made)]
    r = await client.get("/subscriptions", params={"limit": 2, "offset": 1})
    assert [item["id"] for item in r.json()] == [made[3].id, made[2].id]
    assert (await client.get("/subscriptions", params={"offset": 10})).json() == []


async def test_list_filters(client, insert_user, make_subscription):
    first, second = await insert_user(), await insert_user()
    trial = await make_subscription(first, is_trial=True, status="active")
    expired = await make_subscription(first, status="expired")
    other = await make_subscription(second, status="active")

    async def ids(**params) -> list[int]:
        r = await client.get("/subscriptions", params=params)
        assert r.status_code == 200
        return sorted(item["id"] for item in r.json())

    assert await ids(user_id=first.id) == sorted([trial.id, expired.id])
    assert await ids(user_id=second.id) == [other.id]
    assert await ids(status="active") == sorted([trial.id, other.id])
    assert await ids(status="expired") == [expired.id]
    assert await ids(status="pending") == []
    assert await ids(is_trial="true") == [trial.id]
    assert await ids(is_trial="false") == sorted([expired.id, other.id])
    assert await ids(user_id=first.id, status="active", is_trial="true") == [trial.id]
    assert await ids(user_id=2**31 - 1) == []
    beyond = await client.get("/subscriptions", params={"user_id": 2**40})  # beyond INTEGER
    assert beyond.status_code == 422
    assert [(e["loc"], e["type"]) for e in beyond.json()["detail"]] == [
        (["query", "user_id"], "less_than_equal")
    ]
    assert await ids(user_id=first.messenger_id) == []  # the internal id, not the messenger id
