"""`GET /stats/overview` and `GET /stats/full`: the §8 formulas, on rows written directly."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from subsvc_billing.models import Transaction
from subsvc_stats.queries import today_bounds
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User


async def seed(db) -> None:
    """Rows of the §8 example, written "today" (UTC) — after midnight if it is seconds away."""
    start_of_day, end_of_day = today_bounds()
    if (wait := (end_of_day - datetime.now(UTC)).total_seconds()) < 5:
        await asyncio.sleep(wait + 0.1)  # the request must see the same day as the rows
        start_of_day, _ = today_bounds()
    now = datetime.now(UTC)
    yesterday = start_of_day - timedelta(minutes=1)
    async with db.session() as session:
        users = [
            User(messenger_id=1, status="active", balance_kopeks=1000),
            User(messenger_id=2, status="active", balance_kopeks=250, referred_by_id=None),
            User(messenger_id=3, status="blocked", balance_kopeks=5),
            User(messenger_id=4, status="deleted", balance_kopeks=0),
        ]
        session.add_all(users)
        await session.flush()
        a, b, c, _ = (u.id for u in users)
        end = now + timedelta(days=10)
        session.add_all(
            [
                Subscription(user_id=a, status="active", end_date=end, short_id="s1"),
                Subscription(user_id=b, status="active", is_trial=True, end_date=end, short_id="s2"),
                # stored active but past its end: still counted as active (stored status)
                Subscription(user_id=c, status="active", end_date=now - timedelta(days=1), short_id="s3"),
                Subscription(user_id=c, status="expired", end_date=now - timedelta(days=5), short_id="s4"),
                Subscription(user_id=a, status="disabled", end_date=end, short_id="s5"),
            ]
        )
        today = max(start_of_day, now - timedelta(seconds=1))
        session.add_all(
            [
                Transaction(
                    user_id=a,
                    type="deposit",
                    amount_kopeks=10_000,
                    payment_method="yookassa",
                    created_at=today,
                ),
                Transaction(
                    user_id=b, type="deposit", amount_kopeks=550, payment_method="cryptobot", created_at=today
                ),
                # not counted: manual, balance, no method, another type, yesterday
                Transaction(
                    user_id=a, type="deposit", amount_kopeks=7_000, payment_method="manual", created_at=today
                ),
                Transaction(
                    user_id=a, type="deposit", amount_kopeks=7_000, payment_method="balance", created_at=today
                ),
                Transaction(
                    user_id=a, type="deposit", amount_kopeks=7_000, payment_method=None, created_at=today
                ),
                Transaction(
                    user_id=a,
                    type="withdrawal",
                    amount_kopeks=300,
                    payment_method="yookassa",
                    created_at=today,
                ),
                Transaction(
                    user_id=a,
                    type="deposit",
                    amount_kopeks=900,
                    payment_method="yookassa",
                    created_at=yesterday,
                ),
            ]
        )
        await session.commit()


async def test_overview_follows_the_formulas(client, db):
    await seed(db)
    r = await client.get("/stats/overview")
    assert r.status_code == 200
    assert r.json() == {
        "users": {"total": 4, "active": 2, "blocked": 1, "balance_kopeks": 1255, "balance_rubles": 12.55},
        "subscriptions": {"active": 3, "expired": 1},
        "support": {"open_tickets": 0},
        "payments": {"today_kopeks": 10_550, "today_rubles": 105.5},
    }


async def test_overview_of_an_empty_service_is_all_zeros(client):
    r = await client.get("/stats/overview")
    assert r.json() == {
        "users": {"total": 0, "active": 0, "blocked": 0, "balance_kopeks": 0, "balance_rubles": 0.0},
        "subscriptions": {"active": 0, "expired": 0},
        "support": {"open_tickets": 0},
        "payments": {"today_kopeks": 0, "today_rubles": 0.0},
    }


async def test_full_statistics_add_detail(client, db):
    await seed(db)
    body = (await client.get("/stats/full")).json()
    assert body["overview"]["users"]["total"] == 4
    assert body["subscriptions"]["trial_statistics"] == {"total": 1, "active": 1}
    assert body["subscriptions"]["disabled"] == 1
    assert body["transactions"]["totals"]["deposit"] == {"count": 6, "kopeks": 32_450}
    assert body["transactions"]["today"]["payments_kopeks"] == 10_550
    assert body["users"]["deleted"] == 1


async def test_statistics_need_an_api_key(anon_client):
    assert (await anon_client.get("/stats/overview")).status_code == 401
    assert (await anon_client.get("/stats/full")).status_code == 401


@pytest.fixture
def cached(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATS_CACHE_SECONDS", "60")


async def test_figures_are_cached_for_the_configured_time(cached, app, client, db):
    first = (await client.get("/stats/overview")).json()
    await seed(db)
    assert (await client.get("/stats/overview")).json() == first  # still the cached figures
    app.state.stats.overview.clear()
    assert (await client.get("/stats/overview")).json()["users"]["total"] == 4
