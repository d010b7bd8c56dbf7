"""Every segment of the reference against one population, and how targets are resolved."""

from __future__ import annotations

from datetime import datetime, timedelta
from types import ModuleType
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import true
from subsvc_segments.catalogue import BUILT_IN, USERS, Definition
from subsvc_segments.recipients import (
    count_recipients,
    iter_recipients,
    reachable_conditions,
    recipients,
    resolve,
    segment_names,
    user_ids_query,
)
from subsvc_segments.settings import SegmentSettings

from subsvc.hookspecs import hookimpl

DAY = timedelta(days=1)


@pytest.fixture
async def people(insert_user, make_subscription, now: datetime) -> dict[str, int]:
    """One user per situation the segments tell apart, by name -> user id."""
    made: dict[str, Any] = {}

    async def user(name: str, *subscriptions: dict[str, Any], **fields: Any) -> None:
        made[name] = await insert_user(**fields)
        for subscription in subscriptions:
            await make_subscription(made[name], **subscription)

    await user("none", balance_kopeks=20_000)
    await user("paid", {"days": 20, "traffic_used_gb": 5}, referred_by_id=made["none"].id)
    await user("paid_zero", {"days": 20})
    await user("expiring2", {"days": 2, "traffic_used_gb": 1})
    await user("expiring5", {"days": 5, "traffic_used_gb": 1})
    await user("trial", {"days": 10, "is_trial": True})
    await user("trial_status", {"days": 10, "is_trial": True, "status": "trial", "traffic_used_gb": 3})
    await user("trial_ending", {"days": 1, "is_trial": True, "traffic_used_gb": 2})
    await user("trial_over", {"days": -1, "is_trial": True, "traffic_used_gb": 2})
    await user("expired", {"days": -5, "status": "expired", "traffic_used_gb": 9}, created_at=now - 10 * DAY)
    await user("disabled", {"days": 10, "status": "disabled", "traffic_used_gb": 1})
    await user("none_paid", has_had_paid_subscription=True)
    await user("low", balance_kopeks=5_000)
    await user("tariff", {"days": 20, "tariff_id": 7, "traffic_used_gb": 1}, created_at=now - 3 * DAY)
    await user("inactive45", last_activity=now - 45 * DAY, created_at=now - 45 * DAY)
    await user("inactive100", last_activity=now - 100 * DAY, created_at=now - 200 * DAY)
    await user("today", last_activity=now)
    await user("renewed", {"days": -30, "status": "expired"}, {"days": 20, "traffic_used_gb": 1})
    await user("blocked_status", {"days": 20}, status="blocked")
    return {name: row.id for name, row in made.items()}


EVERYONE = {
    "none",
    "paid",
    "paid_zero",
    "expiring2",
    "expiring5",
    "trial",
    "trial_status",
    "trial_ending",
    "trial_over",
    "expired",
    "disabled",
    "none_paid",
    "low",
    "tariff",
    "inactive45",
    "inactive100",
    "today",
    "renewed",
}
ACTIVE = {"paid", "paid_zero", "expiring2", "expiring5", "tariff", "renewed"}
EXPIRED = {"trial_over", "expired", "disabled", "none_paid"}
INACTIVE_WEEK = {"inactive45", "inactive100"}
EXPECTED: dict[str, set[str]] = {
    "all": EVERYONE,
    "active": ACTIVE,
    "trial": {"trial", "trial_status", "trial_ending", "trial_over"},
    "no": {
        "none",
        "trial_over",
        "expired",
        "disabled",
        "none_paid",
        "low",
        "inactive45",
        "inactive100",
        "today",
    },
    "expiring": {"expiring2", "trial_ending"},
    "expiring_subscribers": {"expiring2", "expiring5", "trial_ending"},
    "expired": EXPIRED,
    "expired_subscribers": EXPIRED,
    "zero": {"paid_zero", "trial"},
    "active_zero": {"paid_zero"},
    "trial_zero": {"trial"},
    "trial_ending": {"trial_ending"},
    "trial_expired": {"trial_over"},
    "canceled_subscribers": {"disabled"},
    "autopay_failed": set(),
    "low_balance": {"low"},
    "inactive_30d": INACTIVE_WEEK,
    "inactive_60d": {"inactive100"},
    "inactive_90d": {"inactive100"},
    "custom_today": EVERYONE - {"expired", "tariff", "inactive45", "inactive100"},
    "custom_week": EVERYONE - {"expired", "inactive45", "inactive100"},
    "custom_month": EVERYONE - {"inactive45", "inactive100"},
    "custom_active_today": {"today"},
    "custom_inactive_week": INACTIVE_WEEK,
    "custom_inactive_month": INACTIVE_WEEK,
    "custom_referrals": {"paid"},
    "custom_direct": EVERYONE - {"paid"},
    "tariff_7": {"tariff"},
    "tariff_8": set(),
}


def test_every_built_in_segment_is_checked():
    assert set(BUILT_IN) <= set(EXPECTED)


@pytest.mark.parametrize("target", sorted(EXPECTED))
async def test_segment_members(app, people: dict[str, int], target: str):
    segment = resolve(app, target)
    assert segment is not None

    found = await recipients(app, segment)

    names = {name for name, user_id in people.items() if user_id in {r.user_id for r in found}}
    assert names == EXPECTED[target]
    assert [r.user_id for r in found] == sorted(r.user_id for r in found)
    assert await count_recipients(app, segment) == len(EXPECTED[target])


@pytest.mark.parametrize(
    ("target", "name"),
    [
        ("no_sub", "no"),
        ("ALL_USERS", "all"),
        ("  active_subscribers ", "active"),
        ("trial_users", "trial"),
        ("Expired", "expired"),
        ("TARIFF_12", "tariff_12"),
    ],
)
def test_targets_are_trimmed_lower_cased_and_aliased(app, target: str, name: str):
    segment = resolve(app, target)
    assert segment is not None and segment.name == name


@pytest.mark.parametrize(
    "target", [None, "", "   ", "everyone", "tariff_", "tariff_x", "tariff_0", "tariff_9999999999"]
)
def test_unknown_targets_resolve_to_nothing(app, target: str | None):
    assert resolve(app, target) is None


def test_names_list_every_built_in_segment(app):
    assert set(segment_names(app)) == set(BUILT_IN)


async def test_pages_walk_the_segment_once_in_id_order(app, people: dict[str, int]):
    segment = resolve(app, "all")
    assert segment is not None

    pages = [page async for page in iter_recipients(app, segment, page_size=4)]

    assert [len(page) for page in pages] == [4, 4, 4, 4, 2]
    ids = [r.user_id for page in pages for r in page]
    assert ids == sorted({people[name] for name in EVERYONE})


async def test_a_session_may_be_shared(app, db, people: dict[str, int]):
    segment = resolve(app, "active")
    assert segment is not None
    async with db.session() as session:
        found = await recipients(app, segment, session=session)
        counted = await count_recipients(app, segment, session=session)
    assert {r.user_id for r in found} == {people[name] for name in ACTIVE}
    assert counted == len(ACTIVE)


async def test_a_recipient_carries_what_a_sender_needs(app, insert_user):
    user = await insert_user(
        messenger_id=4242,
        email="a@example.org",
        email_verified=True,
        language="en",
        first_name="Ann",
        username="ann",
    )
    segment = resolve(app, "all")
    assert segment is not None

    (found,) = await recipients(app, segment)

    assert found.user_id == user.id
    assert (found.messenger_id, found.email, found.email_verified) == (4242, "a@example.org", True)
    assert (found.language, found.first_name, found.username, found.messenger_blocked_at) == (
        "en",
        "Ann",
        "ann",
        None,
    )


async def test_reachable_leaves_out_email_only_and_recently_blocked_users(
    app, insert_user, now: datetime, change_settings
):
    reachable = await insert_user()
    email_only = await insert_user(messenger_id=None, email="mail@example.org")
    blocked_now = await insert_user(messenger_blocked_at=now - DAY)
    blocked_long_ago = await insert_user(messenger_blocked_at=now - 40 * DAY)
    segment = resolve(app, "all")
    assert segment is not None

    everyone = {r.user_id for r in await recipients(app, segment)}
    writable = {r.user_id for r in await recipients(app, segment, reachable=True)}

    assert everyone == {reachable.id, email_only.id, blocked_now.id, blocked_long_ago.id}
    assert writable == {reachable.id, blocked_long_ago.id}
    assert await count_recipients(app, segment, reachable=True) == 2

    change_settings(SegmentSettings, SEGMENTS_BLOCKED_SKIP_DAYS=0)
    assert {r.user_id for r in await recipients(app, segment, reachable=True)} == writable | {blocked_now.id}
    assert await count_recipients(app, segment, reachable=True) == 3


async def test_user_ids_query_selects_the_segment(app, db, people: dict[str, int]):
    segment = resolve(app, "expired")
    assert segment is not None

    async with db.session() as session:
        ids = set((await session.exec(user_ids_query(app, segment))).scalars())

    assert ids == {people[name] for name in EXPIRED}


async def test_time_windows_follow_the_moment_resolved(app, people: dict[str, int], now: datetime):
    later = resolve(app, "expiring", now=now + 4 * DAY)  # expiring5 ends 1 day after that moment
    assert later is not None
    assert [r.user_id for r in await recipients(app, later)] == [people["expiring5"]]


# --- segments from other plugins ---------------------------------------------------------------


def _probe() -> ModuleType:
    module = ModuleType("segments_probe")

    @hookimpl
    def segment_definitions() -> dict[str, Definition]:
        return {
            "autopay_failed": Definition(USERS.c.balance_kopeks == 5_000, lambda now: {}),
            "VIP": Definition(USERS.c.balance_kopeks >= 20_000, lambda now: {}),
            "everyone_too": Definition(true(), lambda now: {}),
        }

    module.segment_definitions = segment_definitions  # type: ignore[attr-defined]
    module.REQUIRES = ("segments",)  # type: ignore[attr-defined]
    return module


class TestPluginSegments:
    @pytest.fixture
    def subsvc_plugins(self, subsvc_plugins: list[Any]) -> list[Any]:
        return [*subsvc_plugins, _probe()]

    async def test_a_plugin_adds_and_replaces_segments(self, app, people: dict[str, int]):
        vip = resolve(app, "vip")
        autopay = resolve(app, "autopay_failed")
        assert vip is not None and autopay is not None

        assert {r.user_id for r in await recipients(app, vip)} == {people["none"]}
        assert {r.user_id for r in await recipients(app, autopay)} == {people["low"]}
        assert {"vip", "everyone_too", "all"} <= set(segment_names(app))


async def test_reachable_conditions_serve_other_queries(app, db, insert_user, now: datetime):
    reachable = await insert_user()
    await insert_user(messenger_id=None, email="only@example.org")
    await insert_user(messenger_blocked_at=now - DAY)
    long_ago = await insert_user(messenger_blocked_at=now - 40 * DAY)

    query = sa.select(USERS.c.id).where(*reachable_conditions(app, now)).order_by(USERS.c.id)
    async with db.session() as session:
        ids = list((await session.exec(query)).scalars())

    assert ids == [reachable.id, long_ago.id]
