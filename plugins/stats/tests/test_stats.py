"""`GET /stats/overview` and `GET /stats/full`: the §8 formulas, on rows written directly."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

import httpx2
import pytest
from starlette.applications import Starlette
from subsvc_billing.models import Transaction
from subsvc_stats.queries import today_bounds
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.app import create_app
from subsvc.db import Database
from subsvc.testing import API_KEY


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


@asynccontextmanager
async def another_instance_database(app: Starlette) -> AsyncIterator[Database]:
    """The same database through an engine of its own: what another instance (without a
    shared bus) writes."""
    other = Database(app.state.settings)
    try:
        yield other
    finally:
        await other.dispose()


async def test_figures_are_cached_for_the_configured_time(cached, app, client, db):
    first = (await client.get("/stats/overview")).json()
    async with another_instance_database(app) as elsewhere:
        await seed(elsewhere)
    assert (await client.get("/stats/overview")).json() == first  # still the cached figures
    app.state.stats.overview.clear()
    assert (await client.get("/stats/overview")).json()["users"]["total"] == 4


async def test_a_change_committed_on_this_instance_shows_at_once(cached, client, db):
    assert (await client.get("/stats/overview")).json()["users"]["total"] == 0
    assert (await client.get("/stats/full")).json()["users"]["total"] == 0
    r = await client.post("/users", json={"messenger_id": 77})
    assert r.status_code == 201, r.text
    assert (await client.get("/stats/overview")).json()["users"]["total"] == 1
    assert (await client.get("/stats/full")).json()["overview"]["users"]["total"] == 1
    await seed(db)  # rows written straight through this instance's database count too
    body = (await client.get("/stats/overview")).json()
    assert body["users"]["total"] == 5
    assert body["subscriptions"] == {"active": 3, "expired": 1}
    assert body["payments"]["today_kopeks"] == 10_550


async def test_a_rolled_back_change_keeps_the_figures(cached, app, client, db):
    await client.get("/stats/overview")
    generation = app.state.stats.changes.generation
    async with db.session() as session:
        session.add(User(messenger_id=5, status="active"))
        await session.flush()
        await session.rollback()
    assert app.state.stats.changes.generation == generation


async def test_expired_figures_are_answered_at_once_and_renewed_in_the_background(cached, app, client):
    first = (await client.get("/stats/overview")).json()
    async with another_instance_database(app) as elsewhere:
        await seed(elsewhere)
    app.state.stats.overview.expires = 0.0  # as if STATS_CACHE_SECONDS had passed
    assert (await client.get("/stats/overview")).json() == first  # the last figures, no wait
    await app.state.stats.settled()  # the computation that request started
    assert (await client.get("/stats/overview")).json()["users"]["total"] == 4


async def test_many_requests_after_a_change_share_one_computation(cached, app, client, db):
    await client.get("/stats/overview")
    computed = 0
    compute = app.state.stats.overview.compute

    async def counted():
        nonlocal computed
        computed += 1
        return await compute()

    app.state.stats.overview.compute = counted
    await seed(db)
    answers = await asyncio.gather(*(client.get("/stats/overview") for _ in range(8)))
    assert {r.json()["users"]["total"] for r in answers} == {4}
    assert computed == 1


@asynccontextmanager
async def instance(settings) -> AsyncIterator[tuple[Starlette, httpx2.AsyncClient]]:
    application = create_app(settings, plugins=["stats"])
    async with application.router.lifespan_context(application):
        transport = httpx2.ASGITransport(app=application)
        async with httpx2.AsyncClient(
            transport=transport, base_url="http://t", headers={"X-API-Key": API_KEY}
        ) as http:
            yield application, http


async def test_a_change_on_another_instance_arrives_through_redis(cached, redis_url, subsvc_settings, app):
    settings = subsvc_settings.model_copy(update={"REDIS_URL": redis_url})
    async with instance(settings) as (_one, a), instance(settings) as (two, b):
        assert (await b.get("/stats/overview")).json()["users"]["total"] == 0  # kept by instance two
        heard = asyncio.Event()
        two.state.bus.subscribe("stats.changed", lambda message: heard.set())
        assert (await a.post("/users", json={"messenger_id": 78})).status_code == 201
        await asyncio.wait_for(heard.wait(), timeout=10)
        # instance two answers its last figures at once and computes new ones meanwhile
        assert (await b.get("/stats/overview")).json()["users"]["total"] == 0
        await two.state.stats.settled()
        assert (await b.get("/stats/overview")).json()["users"]["total"] == 1
