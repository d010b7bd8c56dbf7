"""Totals of user lists: exact, kept a few seconds per filter, dropped when this process
changes users (USERS_COUNT_CACHE_SECONDS; 0 = always count)."""

from __future__ import annotations

import asyncio

import pytest
from subsvc_users import counts as counts_module
from subsvc_users.counts import CountCache
from subsvc_users.models import User

from subsvc.db import Database


async def insert_behind_the_api(db: Database, code: str) -> None:
    async with db.session() as session:
        session.add(User(referral_code=code))
        await session.commit()


async def test_totals_are_kept_and_dropped_on_create(client, db, make_user):
    await make_user()
    assert (await client.get("/users")).json()["total"] == 1
    await insert_behind_the_api(db, "refbehind1")  # e.g. another instance
    r = await client.get("/users")
    assert r.json()["total"] == 1  # the kept total...
    assert len(r.json()["items"]) == 2  # ...while the page is always fresh
    await make_user()  # a change in this process drops the kept totals
    assert (await client.get("/users")).json()["total"] == 3


async def test_search_totals_are_kept_per_filter(client, db, make_user):
    await make_user(first_name="Zed")
    assert (await client.get("/users", params={"search": "zed"})).json()["total"] == 1
    assert (await client.get("/users", params={"search": "ze"})).json()["total"] == 1
    async with db.session() as session:
        session.add(User(first_name="Zed", referral_code="refbehind2"))
        await session.commit()
    assert (await client.get("/users", params={"search": "zed"})).json()["total"] == 1
    assert (await client.get("/users", params={"search": "zed", "status": "active"})).json()["total"] == 2


class TestWithoutCache:
    @pytest.fixture(autouse=True)
    def _no_cache(self, monkeypatch):
        monkeypatch.setenv("USERS_COUNT_CACHE_SECONDS", "0")

    async def test_zero_seconds_counts_every_time(self, app, client, db, make_user):
        assert app.state.settings_of["users"].USERS_COUNT_CACHE_SECONDS == 0
        await make_user()
        assert (await client.get("/users")).json()["total"] == 1
        await insert_behind_the_api(db, "refbehind3")
        assert (await client.get("/users")).json()["total"] == 2


def test_setting_default_and_bounds(monkeypatch):
    from subsvc_users.settings import UsersSettings

    assert UsersSettings(_env_file=None).USERS_COUNT_CACHE_SECONDS == 5
    monkeypatch.setenv("USERS_COUNT_CACHE_SECONDS", "-1")
    with pytest.raises(ValueError):
        UsersSettings(_env_file=None)


def test_entries_expire(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(counts_module.time, "monotonic", lambda: now[0])
    cache = CountCache(5)
    cache.put("k", 7, cache.generation)
    assert cache.get("k") == 7
    now[0] += 4.9
    assert cache.get("k") == 7
    now[0] += 0.2
    assert cache.get("k") is None


def test_a_count_older_than_a_change_is_not_kept():
    cache = CountCache(5)
    generation = cache.generation
    cache.invalidate()  # a change committed while the count ran
    cache.put("k", 7, generation)
    assert cache.get("k") is None


def test_least_recently_used_entries_go_first():
    cache = CountCache(5, max_entries=2)
    cache.put("a", 1, 0)
    cache.put("b", 2, 0)
    assert cache.get("a") == 1
    cache.put("c", 3, 0)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)


def test_zero_seconds_keeps_nothing():
    cache = CountCache(0)
    cache.put("k", 7, cache.generation)
    assert cache.get("k") is None


async def test_concurrent_misses_share_one_count():
    cache = CountCache(5)
    calls = 0
    release = asyncio.Event()

    async def count() -> int:
        nonlocal calls
        calls += 1
        await release.wait()
        return 42

    waiting = [asyncio.create_task(cache.total("all", count)) for _ in range(10)]
    await asyncio.sleep(0)
    release.set()
    assert await asyncio.gather(*waiting) == [42] * 10
    assert calls == 1
    assert await cache.total("all", count) == 42 and calls == 1  # kept


async def test_when_the_shared_count_fails_the_waiters_count_themselves():
    cache = CountCache(5)
    release = asyncio.Event()
    attempts: list[str] = []

    async def failing() -> int:
        attempts.append("failing")
        await release.wait()
        raise RuntimeError("database went away")

    async def working() -> int:
        attempts.append("working")
        return 7

    first = asyncio.create_task(cache.total("all", failing))
    await asyncio.sleep(0)
    second = asyncio.create_task(cache.total("all", working))
    await asyncio.sleep(0)
    release.set()
    with pytest.raises(RuntimeError):
        await first
    assert await second == 7
    assert attempts == ["failing", "working"]


async def test_waiters_of_a_failed_count_count_once_more_together():
    """A shared count that fails: the requests that waited for it wait for one new count
    (they used to each start one, and all but the first answered 500 with a KeyError)."""
    cache = CountCache(5)
    started = asyncio.Event()
    release = asyncio.Event()
    calls = []

    async def failing() -> int:
        calls.append("failing")
        started.set()
        await release.wait()
        raise ConnectionError("the database went away")

    async def counting() -> int:
        calls.append("counting")
        await asyncio.sleep(0)
        return 42

    first = asyncio.create_task(cache.total("k", failing))
    await started.wait()
    waiters = [asyncio.create_task(cache.total("k", counting)) for _ in range(5)]
    await asyncio.sleep(0)
    release.set()
    with pytest.raises(ConnectionError):
        await first
    assert await asyncio.gather(*waiters) == [42] * 5
    assert calls == ["failing", "counting"]
    assert cache.get("k") == 42
