"""`/users/{user_id}/subscription` and the user record's `subscription` / `subscriptions`."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from starlette.requests import Request
from subsvc_subscriptions.models import Subscription
from subsvc_subscriptions.service import RECORD_COLUMN, record_extras
from subsvc_users.models import User
from subsvc_users.records import record_columns, record_rows, user_record
from subsvc_users.schemas import SubscriptionSummary

from subsvc.db import utcnow
from subsvc.testing import recorded_statements

ALREADY = "User already has a subscription. Use replace_existing=true to replace it"


async def test_create_answers_the_user_record(client, insert_user, rows, utc_time):
    user = await insert_user(messenger_id=123_456_789)
    r = await client.post(f"/users/{user.messenger_id}/subscription", json={"duration_days": 30})
    assert r.status_code == 201, r.text
    record = r.json()
    assert record["id"] == user.id and record["messenger_id"] == 123_456_789
    assert record["has_had_paid_subscription"] is True
    [row] = await rows(Subscription)
    assert record["subscription"]["id"] == row.id
    assert (
        record["subscription"]["status"] == "active" and record["subscription"]["actual_status"] == "active"
    )
    assert record["subscription"]["traffic_limit_gb"] == 100
    assert record["subscription"]["tariff_id"] is None and record["subscription"]["tariff_name"] is None
    assert [s["id"] for s in record["subscriptions"]] == [row.id]
    assert utc_time(record["subscription"]["end_date"]) == row.end_date
    [stored] = await rows(User)
    assert stored.has_had_paid_subscription is True


async def test_create_resolves_the_internal_id_too(client, insert_user, rows):
    user = await insert_user(messenger_id=None)
    r = await client.post(f"/users/{user.id}/subscription", json={"is_trial": True})
    assert r.status_code == 201
    assert r.json()["subscription"]["is_trial"] is True
    assert r.json()["has_had_paid_subscription"] is False
    [row] = await rows(Subscription)
    assert row.user_id == user.id


async def test_create_for_an_unknown_user_is_404(client, rows, outbox):
    r = await client.post("/users/424242/subscription", json={"is_trial": True})
    assert r.status_code == 404 and r.json() == {"detail": "User not found"}
    assert await rows(Subscription) == [] and await outbox() == []


async def test_create_rules_apply(client, insert_user, make_subscription, rows):
    user = await insert_user()
    assert (await client.post(f"/users/{user.id}/subscription", json={})).json() == {
        "detail": "duration_days is required for paid subscriptions"
    }
    existing = await make_subscription(user, status="expired", end_in=timedelta(days=-1))
    r = await client.post(f"/users/{user.id}/subscription", json={"duration_days": 10})
    assert r.status_code == 400 and r.json() == {"detail": ALREADY}
    r = await client.post(
        f"/users/{user.id}/subscription", json={"duration_days": 10, "replace_existing": True}
    )
    assert r.status_code == 201
    assert r.json()["subscription"]["id"] == existing.id
    assert r.json()["subscription"]["actual_status"] == "active"
    assert len(await rows(Subscription)) == 1


async def test_delete_disables_the_current_subscription(client, insert_user, make_subscription, rows, outbox):
    user = await insert_user()
    older = await make_subscription(user, status="expired", end_in=timedelta(days=-5))
    current = await make_subscription(user, status="active")
    r = await client.delete(f"/users/{user.messenger_id}/subscription")
    assert r.status_code == 200
    record = r.json()
    assert record["id"] == user.id
    by_id = {row.id: row for row in await rows(Subscription)}
    assert by_id[current.id].status == "disabled" and by_id[older.id].status == "expired"
    assert {s["id"]: s["status"] for s in record["subscriptions"]} == {
        current.id: "disabled",
        older.id: "expired",
    }
    assert [(p["subscription_id"], p["change"]) for _, p in await outbox()] == [(current.id, "disabled")]


async def test_delete_a_given_subscription_of_the_user(client, insert_user, make_subscription, rows):
    user, other = await insert_user(), await insert_user()
    first = await make_subscription(user, status="active")
    second = await make_subscription(user, status="active")
    foreign = await make_subscription(other, status="active")
    r = await client.delete(f"/users/{user.id}/subscription", params={"subscription_id": first.id})
    assert r.status_code == 200
    by_id = {row.id: row.status for row in await rows(Subscription)}
    assert by_id == {first.id: "disabled", second.id: "active", foreign.id: "active"}
    assert r.json()["subscription"]["id"] == second.id
    for wrong in (foreign.id, 999_999, 2**31 - 1):
        r = await client.delete(f"/users/{user.id}/subscription", params={"subscription_id": wrong})
        assert r.status_code == 404 and r.json() == {"detail": "User has no subscription"}
    r = await client.delete(f"/users/{user.id}/subscription", params={"subscription_id": 2**40})
    assert r.status_code == 422  # beyond the INTEGER column
    assert [(e["loc"], e["type"]) for e in r.json()["detail"]] == [
        (["query", "subscription_id"], "less_than_equal")
    ]
    assert {row.id: row.status for row in await rows(Subscription)}[foreign.id] == "active"


async def test_delete_404s(client, insert_user):
    r = await client.delete("/users/424242/subscription")
    assert r.status_code == 404 and r.json() == {"detail": "User not found"}
    user = await insert_user()
    r = await client.delete(f"/users/{user.id}/subscription")
    assert r.status_code == 404 and r.json() == {"detail": "User has no subscription"}


# --- the user record -----------------------------------------------------------------------------


@pytest.mark.parametrize("with_the_records", [False, True])
async def test_primary_subscription_of_the_record(app, db, insert_user, make_subscription, with_the_records):
    """Read apart (one query), or with the records (on PostgreSQL in their statement)."""
    base = make_subscription
    live_first = await insert_user()
    old_active = await base(live_first, status="active", created_at=_ago(3))
    await base(live_first, status="expired", created_at=_ago(1))
    pending_skipped = await insert_user()
    disabled = await base(pending_skipped, status="disabled", created_at=_ago(3))
    await base(pending_skipped, status="pending", is_trial=True, created_at=_ago(1))
    paid_pending = await insert_user()
    pending = await base(paid_pending, status="pending", is_trial=False, created_at=_ago(1))
    only_unpaid_trial = await insert_user()
    await base(only_unpaid_trial, status="pending", is_trial=True)
    trial_stored = await insert_user()
    trial = await base(trial_stored, status="trial", end_in=timedelta(days=-1), created_at=_ago(5))
    await base(trial_stored, status="limited", created_at=_ago(1))
    nothing = await insert_user()
    users = [live_first, pending_skipped, paid_pending, only_unpaid_trial, trial_stored, nothing]

    ids = [u.id for u in users]
    with recorded_statements(db) as statements:
        async with db.session() as session:
            rows: list = []
            if with_the_records:
                by_id = {
                    row["id"]: row for row in await record_rows(session, ids, record_columns(app, session))
                }
                rows = [by_id[user_id] for user_id in ids]
            extras = await record_extras(session, ids, rows)
    assert len(statements) == (2 if with_the_records and db.dialect != "postgresql" else 1)

    def primary(user: User) -> int | None:
        chosen = extras[user.id]["subscription"]
        return None if chosen is None else chosen["id"]

    assert primary(live_first) == old_active.id
    assert primary(pending_skipped) == disabled.id
    assert primary(paid_pending) == pending.id
    assert primary(only_unpaid_trial) is None
    assert primary(trial_stored) == trial.id
    assert extras[trial_stored.id]["subscription"]["actual_status"] == "expired"
    assert primary(nothing) is None and extras[nothing.id]["subscriptions"] == []
    assert [s["status"] for s in extras[live_first.id]["subscriptions"]] == ["expired", "active"]
    assert len(extras[only_unpaid_trial.id]["subscriptions"]) == 1


async def test_the_subscriptions_read_with_the_records_are_those_read_apart(
    app, db, insert_user, make_subscription
):
    user = await insert_user()
    await make_subscription(
        user,
        connected_squads=["nl-1", "de-2"],
        traffic_used_gb=1.5,
        autopay_days_before=None,
        subscription_url="https://sub.example/abc",
        tariff_id=7,
        created_at=_ago(2),
    )
    await make_subscription(
        user, status="expired", is_trial=True, end_in=timedelta(days=-3), created_at=_ago(1)
    )
    async with db.session() as session:
        rows = await record_rows(session, [user.id], record_columns(app, session))
        together = await record_extras(session, [user.id], rows)
        apart = await record_extras(session, [user.id])
    assert (RECORD_COLUMN in rows[0]) is (db.dialect == "postgresql")

    def summaries(extras: dict) -> list[dict]:
        return [SubscriptionSummary.model_validate(s).model_dump() for s in extras[user.id]["subscriptions"]]

    assert summaries(together) == summaries(apart)
    assert [s["actual_status"] for s in summaries(together)] == ["expired", "active"]
    assert summaries(together)[1]["connected_squads"] == ["nl-1", "de-2"]
    assert summaries(together)[1]["end_date"].tzinfo is not None
    assert together[user.id]["subscription"]["id"] == apart[user.id]["subscription"]["id"]


async def test_user_record_shows_subscriptions(app, client, db, insert_user):
    """Through ``GET /users/{id}`` when the users plugin serves it, else through its
    ``user_record`` builder directly."""
    user = await insert_user()
    first = (await client.post(f"/users/{user.id}/subscription", json={"is_trial": True})).json()
    assert first["subscription"]["is_trial"] is True
    if any(e.method == "GET" and e.path == "/users/{user_id}" for e in app.state.endpoints):
        record = (await client.get(f"/users/{user.id}")).json()
    else:
        request = Request({"type": "http", "app": app, "headers": [], "method": "GET", "path": "/"})
        async with db.session() as session:
            stored = await session.get(User, user.id)
            record = (await user_record(request, session, stored)).model_dump(mode="json")
    assert record["subscription"]["id"] == first["subscription"]["id"]
    assert record["subscription"]["actual_status"] == "active"
    assert record["subscription"]["traffic_limit_gb"] == 10
    assert [s["id"] for s in record["subscriptions"]] == [first["subscription"]["id"]]


def _ago(hours: int) -> datetime:
    return utcnow() - timedelta(hours=hours)
