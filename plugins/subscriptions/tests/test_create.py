"""POST /subscriptions: the day-field alias, trial and paid rules, defaults, replacing."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from subsvc_subscriptions.models import Subscription, TrafficPurchase
from subsvc_users.models import User

from subsvc.db import utcnow

ALREADY = "User already has a subscription. Use replace_existing=true to replace it"


def _days(body: dict, utc_time) -> float:
    return (utc_time(body["end_date"]) - utc_time(body["start_date"])).total_seconds() / 86400


# --- period_days / duration_days -----------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [{"period_days": 30}, {"duration_days": 30}, {"period_days": 30, "duration_days": 30}],
    ids=["period_days", "duration_days", "both-equal"],
)
async def test_days_under_either_name(client, insert_user, rows, utc_time, fields):
    user = await insert_user()
    r = await client.post("/subscriptions", json={"user_id": user.id, **fields})
    assert r.status_code == 201, r.text
    body = r.json()
    assert _days(body, utc_time) == 30
    [row] = await rows(Subscription)
    assert (row.end_date - row.start_date) == timedelta(days=30)
    assert row.user_id == user.id and row.is_trial is False


async def test_days_under_both_names_with_different_values_is_422(client, insert_user, rows, outbox):
    user = await insert_user()
    r = await client.post("/subscriptions", json={"user_id": user.id, "period_days": 30, "duration_days": 31})
    assert r.status_code == 422
    [item] = r.json()["detail"]
    assert item["loc"] == ["body"] and item["type"] == "value_error"
    assert "period_days and duration_days" in item["msg"]
    assert await rows(Subscription) == [] and await outbox() == []


async def test_alias_on_the_per_user_route(client, insert_user, rows):
    user = await insert_user()
    r = await client.post(f"/users/{user.id}/subscription", json={"period_days": 7, "duration_days": 8})
    assert r.status_code == 422
    r = await client.post(f"/users/{user.id}/subscription", json={"period_days": 7})
    assert r.status_code == 201
    [row] = await rows(Subscription)
    assert row.end_date - row.start_date == timedelta(days=7)


# --- trial ---------------------------------------------------------------------------------------


async def test_trial_takes_the_trial_defaults(client, insert_user, rows, utc_time):
    user = await insert_user()
    r = await client.post("/subscriptions", json={"user_id": user.id, "is_trial": True})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["status"] == "active" and body["actual_status"] == "active"
    assert body["is_trial"] is True
    assert _days(body, utc_time) == 3
    assert (body["traffic_limit_gb"], body["device_limit"]) == (10, 2)
    assert body["autopay_enabled"] is False and body["autopay_days_before"] == 3
    assert body["connected_squads"] == []
    assert body["traffic_used_gb"] == 0 and body["user_id"] == user.id
    [row] = await rows(Subscription)
    assert row.panel_sync_state == "pending"
    assert re.fullmatch(r"[a-z0-9]{8}", row.short_id)
    [stored_user] = await rows(User)
    assert stored_user.has_had_paid_subscription is False


async def test_trial_zero_traffic_falls_back_to_the_trial_limit(client, insert_user):
    user = await insert_user()
    r = await client.post(
        "/subscriptions",
        json={
            "user_id": user.id,
            "is_trial": True,
            "traffic_limit_gb": 0,
            "duration_days": 5,
            "device_limit": 4,
        },
    )
    assert r.status_code == 201
    assert (r.json()["traffic_limit_gb"], r.json()["device_limit"]) == (10, 4)


async def test_trial_defaults_come_from_settings(client, insert_user, configure, utc_time):
    configure(
        TRIAL_DURATION_DAYS=7,
        TRIAL_TRAFFIC_LIMIT_GB=25,
        TRIAL_DEVICE_LIMIT=3,
        TRIAL_SQUAD_UUIDS="sq-a, sq-b",
    )
    user = await insert_user()
    body = (await client.post("/subscriptions", json={"user_id": user.id, "is_trial": True})).json()
    assert _days(body, utc_time) == 7
    assert (body["traffic_limit_gb"], body["device_limit"]) == (25, 3)
    assert body["connected_squads"] == ["sq-a", "sq-b"]


async def test_trial_squad_uuid_wins_over_the_defaults(client, insert_user, configure):
    configure(TRIAL_SQUAD_UUIDS="default-squad")
    user = await insert_user()
    body = (
        await client.post("/subscriptions", json={"user_id": user.id, "is_trial": True, "squad_uuid": "mine"})
    ).json()
    assert body["connected_squads"] == ["mine"]


# --- paid ----------------------------------------------------------------------------------------


async def test_paid_without_days_is_400(client, insert_user, rows, outbox):
    user = await insert_user()
    r = await client.post("/subscriptions", json={"user_id": user.id})
    assert r.status_code == 400
    assert r.json() == {"detail": "duration_days is required for paid subscriptions"}
    assert await rows(Subscription) == [] and await outbox() == []


async def test_paid_takes_the_defaults_and_marks_the_user(client, insert_user, rows, configure):
    configure(DEFAULT_AUTOPAY_ENABLED=True, DEFAULT_AUTOPAY_DAYS_BEFORE=5, DEFAULT_SQUAD_UUIDS="paid-squad")
    user = await insert_user()
    r = await client.post("/subscriptions", json={"user_id": user.id, "duration_days": 30})
    body = r.json()
    assert r.status_code == 201
    assert (body["traffic_limit_gb"], body["device_limit"]) == (100, 1)
    assert body["is_trial"] is False and body["status"] == "active"
    assert (body["autopay_enabled"], body["autopay_days_before"]) == (True, 5)
    assert body["connected_squads"] == ["paid-squad"]
    [stored_user] = await rows(User)
    assert stored_user.has_had_paid_subscription is True


async def test_paid_zero_traffic_is_unlimited_and_given_values_are_kept(client, insert_user):
    user = await insert_user()
    r = await client.post(
        "/subscriptions",
        json={
            "user_id": user.id,
            "period_days": 90,
            "traffic_limit_gb": 0,
            "device_limit": 5,
            "connected_squads": ["a", "b", "a"],
            "squad_uuid": "c",
        },
    )
    body = r.json()
    assert (body["traffic_limit_gb"], body["device_limit"]) == (0, 5)
    assert body["connected_squads"] == ["a", "b", "c"]


async def test_forced_device_limit_when_selection_is_disabled(client, insert_user, configure):
    configure(DEVICES_SELECTION_ENABLED=False, DEVICES_SELECTION_DISABLED_AMOUNT=4)
    first, second = await insert_user(), await insert_user()
    forced = (await client.post("/subscriptions", json={"user_id": first.id, "is_trial": True})).json()
    given = (
        await client.post(
            "/subscriptions", json={"user_id": second.id, "duration_days": 1, "device_limit": 2}
        )
    ).json()
    assert (forced["device_limit"], given["device_limit"]) == (4, 2)


async def test_paid_disables_the_users_other_live_trials(
    client, insert_user, make_subscription, rows, outbox
):
    user = await insert_user()
    expired_trial = await make_subscription(user, is_trial=True, status="expired")
    live_trial = await make_subscription(user, is_trial=True, status="active", end_in=timedelta(days=2))
    current = await make_subscription(user, status="active", end_in=timedelta(days=20))
    r = await client.post(
        "/subscriptions", json={"user_id": user.id, "duration_days": 30, "replace_existing": True}
    )
    assert r.status_code == 201
    assert r.json()["id"] == current.id and r.json()["is_trial"] is False
    by_id = {row.id: row for row in await rows(Subscription)}
    assert by_id[expired_trial.id].status == "expired"
    assert by_id[live_trial.id].status == "disabled"
    assert by_id[live_trial.id].panel_sync_state == "pending"
    changes = [(payload["subscription_id"], payload["change"]) for _, payload in await outbox()]
    assert changes == [(current.id, "replaced"), (live_trial.id, "disabled")]


async def test_unknown_user_is_404_and_one_beyond_integer_422(client, rows):
    for user_id in (12345, 2**31 - 1):
        r = await client.post("/subscriptions", json={"user_id": user_id, "is_trial": True})
        assert r.status_code == 404
        assert r.json() == {"detail": "User not found"}
    r = await client.post("/subscriptions", json={"user_id": 2**40, "is_trial": True})
    assert r.status_code == 422
    assert [(e["loc"], e["type"]) for e in r.json()["detail"]] == [(["body", "user_id"], "less_than_equal")]
    assert await rows(Subscription) == []


async def test_body_user_id_is_the_internal_id(client, insert_user, rows):
    user = await insert_user(messenger_id=555_000)
    r = await client.post("/subscriptions", json={"user_id": 555_000, "is_trial": True})
    assert r.status_code == 404
    r = await client.post("/subscriptions", json={"user_id": user.id, "is_trial": True})
    assert r.status_code == 201 and r.json()["user_id"] == user.id


async def test_short_ids_are_unique(client, insert_user, rows):
    for _ in range(5):
        user = await insert_user()
        assert (
            await client.post("/subscriptions", json={"user_id": user.id, "is_trial": True})
        ).status_code == 201
    short_ids = [row.short_id for row in await rows(Subscription)]
    assert len(set(short_ids)) == 5


# --- replace_existing ----------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["active", "expired", "disabled"])
async def test_existing_subscription_without_replace_is_400(
    client, insert_user, make_subscription, rows, status
):
    user = await insert_user()
    existing = await make_subscription(user, status=status)
    r = await client.post("/subscriptions", json={"user_id": user.id, "duration_days": 30})
    assert r.status_code == 400
    assert r.json() == {"detail": ALREADY}
    [row] = await rows(Subscription)
    assert row.id == existing.id and row.status == status and row.panel_sync_state == "synced"


async def test_replace_overwrites_the_current_subscription(
    client, insert_user, make_subscription, rows, outbox, db, utc_time
):
    user = await insert_user()
    old = await make_subscription(
        user,
        status="expired",
        end_in=timedelta(days=-2),
        traffic_used_gb=12.5,
        purchased_traffic_gb=20,
        connected_squads=["kept"],
        subscription_url="https://sub.example/x",
        subscription_crypto_link="happ://x",
        autopay_enabled=True,
    )
    async with db.session() as session:
        session.add(TrafficPurchase(subscription_id=old.id, traffic_gb=20, expires_at=utcnow()))
        await session.commit()
    r = await client.post(
        "/subscriptions",
        json={"user_id": user.id, "is_trial": True, "replace_existing": True, "duration_days": 10},
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["id"] == old.id
    assert body["status"] == "active" and body["is_trial"] is True
    assert _days(body, utc_time) == 10
    assert (body["traffic_limit_gb"], body["traffic_used_gb"], body["device_limit"]) == (10, 0, 2)
    assert body["connected_squads"] == ["kept"]
    assert body["subscription_url"] is None and body["subscription_crypto_link"] is None
    assert body["autopay_enabled"] is False
    [row] = await rows(Subscription)
    assert row.purchased_traffic_gb == 0 and row.panel_sync_state == "pending"
    assert row.short_id == old.short_id
    assert await rows(TrafficPurchase) == []
    [(event_type, payload)] = await outbox()
    assert event_type == "subscription.changed" and payload["change"] == "replaced"


async def test_replace_picks_active_before_trial_before_latest_end(client, insert_user, make_subscription):
    user = await insert_user()
    await make_subscription(user, status="expired", end_in=timedelta(days=90))
    trial = await make_subscription(user, status="trial", end_in=timedelta(days=1))
    active = await make_subscription(user, status="active", end_in=timedelta(days=2))
    body = {"user_id": user.id, "duration_days": 30, "replace_existing": True}
    assert (await client.post("/subscriptions", json=body)).json()["id"] == active.id
    other = await insert_user()
    await make_subscription(other, status="disabled", end_in=timedelta(days=5))
    latest = await make_subscription(other, status="expired", end_in=timedelta(days=9))
    body = {"user_id": other.id, "duration_days": 30, "replace_existing": True}
    assert (await client.post("/subscriptions", json=body)).json()["id"] == latest.id
    assert trial.id is not None


async def test_replace_without_existing_creates(client, insert_user, rows, outbox):
    user = await insert_user()
    r = await client.post(
        "/subscriptions", json={"user_id": user.id, "duration_days": 3, "replace_existing": True}
    )
    assert r.status_code == 201
    assert len(await rows(Subscription)) == 1
    assert [payload["change"] for _, payload in await outbox()] == ["created"]
