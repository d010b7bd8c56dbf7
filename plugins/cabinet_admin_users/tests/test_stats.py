"""`GET /cabinet/admin/users/stats`."""

from __future__ import annotations

from datetime import timedelta

from subsvc.db import utcnow

BASE = "/cabinet/admin/users"


async def test_empty(admin):
    body = (await admin.get(f"{BASE}/stats")).json()
    assert body["total_users"] == 0 and body["avg_balance_kopeks"] == 0 and body["total_balance_rubles"] == 0


async def test_counts_users_by_status_signup_activity_and_subscriptions(admin, make_user, make_subscription):
    now = utcnow()
    fresh = await make_user(balance_kopeks=1000, last_activity=now)
    week = await make_user(
        balance_kopeks=501, created_at=now - timedelta(days=3), last_activity=now - timedelta(days=2)
    )
    old = await make_user(created_at=now - timedelta(days=20), last_activity=now - timedelta(days=20))
    await make_user(
        status="blocked", balance_kopeks=7000, created_at=now - timedelta(days=60), last_activity=now
    )
    await make_user(status="deleted", created_at=now - timedelta(days=90))
    await make_subscription(fresh, days=5)  # live paid
    await make_subscription(week, days=5, is_trial=True)  # live trial
    await make_subscription(old, days=-1)  # ended
    await make_subscription(old, days=10, status="disabled")  # not live either

    body = (await admin.get(f"{BASE}/stats")).json()
    expected = {
        "total_users": 5,
        "active_users": 3,
        "blocked_users": 1,
        "deleted_users": 1,
        "new_week": 2,
        "new_month": 3,
        "users_with_subscription": 3,
        "users_with_active_subscription": 2,
        "users_with_trial": 1,
        "users_with_expired_subscription": 1,
        "total_balance_kopeks": 1501,
        "total_balance_rubles": 15.01,
        "avg_balance_kopeks": 500,
        "active_week": 2,
        "active_month": 3,
    }
    assert {key: body[key] for key in expected} == expected
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    assert body["new_today"] == 1 + (week.created_at >= midnight)
    assert body["active_today"] == 1 + (week.last_activity >= midnight)
