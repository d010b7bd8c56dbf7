"""What selling needs of subscriptions (``subsvc_subscriptions.lifecycle`` through the api):
resolving the user's subscription, creating on a tariff's terms, one held subscription per
tariff, tariff changes, the daily state, the traffic used and bulk expiry; with the clock
given, on the real database, the events read from the outbox."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import (
    DuplicateTariff,
    Subscription,
    SubscriptionSettings,
    Terms,
    TrafficPurchase,
)

from subsvc.services import services
from subsvc.testing_migrations import migrated_database

NOW = datetime(2030, 1, 10, 12, 0, tzinfo=UTC)
TERMS = Terms(tariff_id=7, days=30, traffic_limit_gb=50, device_limit=2, squads=["a", "b", "a"])


@pytest.fixture
def session_of(app, db):
    """``async with session_of() as (session, events, settings)``: a session committed on exit."""
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def open_session():
        async with db.session() as session:
            yield session, services(app).events, SubscriptionSettings.of(app)
            await session.commit()

    return open_session


# --- resolve, of_user ----------------------------------------------------------------------------


async def test_resolve_single_mode_is_the_primary_and_an_id_must_be_the_users(
    insert_user, make_subscription, db
):
    user, other = await insert_user(), await insert_user()
    expired = await make_subscription(user, status="expired", end_in=timedelta(days=-3))
    active = await make_subscription(user, end_in=timedelta(days=5))
    theirs = await make_subscription(other)
    async with db.session() as session:
        assert (await subscriptions.resolve(session, user.id, None, multi=False)).id == active.id
        assert (await subscriptions.resolve(session, user.id, expired.id, multi=False)).id == expired.id
        assert await subscriptions.resolve(session, user.id, theirs.id, multi=False) is None
        assert await subscriptions.resolve(session, user.id, 2**40, multi=True) is None
        assert await subscriptions.resolve(session, (await insert_user()).id, None, multi=False) is None


async def test_resolve_multi_mode_prefers_non_daily_then_most_days_left(insert_user, make_subscription, db):
    user = await insert_user()
    now = datetime.now(UTC)
    daily_long = await make_subscription(user, end_in=timedelta(days=90), last_daily_charge_at=now)
    short = await make_subscription(user, end_in=timedelta(days=5), tariff_id=1)
    long = await make_subscription(user, end_in=timedelta(days=40), tariff_id=2)
    await make_subscription(user, status="expired", end_in=timedelta(days=400), tariff_id=3)
    async with db.session() as session:
        found = await subscriptions.resolve(session, user.id, None, multi=True, for_update=True)
        assert found is not None and found.id == long.id
        named = await subscriptions.resolve(session, user.id, short.id, multi=True)
        assert named is not None and named.id == short.id
        # daily ones only when nothing else is active
        later = now + timedelta(days=60)
        assert (
            await subscriptions.resolve(session, user.id, None, multi=True, now=later)
        ).id == daily_long.id
        assert (
            await subscriptions.resolve(session, user.id, None, multi=True, now=now + timedelta(days=91))
            is None
        )


async def test_of_user_filters_by_tariff_and_held_status(insert_user, make_subscription, db):
    user = await insert_user()
    held = await make_subscription(user, tariff_id=4, status="limited")
    gone = await make_subscription(user, tariff_id=4, status="expired")
    other = await make_subscription(user, tariff_id=5)
    async with db.session() as session:
        assert {s.id for s in await subscriptions.of_user(session, user.id)} == {held.id, gone.id, other.id}
        four = await subscriptions.of_user(session, user.id, tariff_id=4, live_only=True, for_update=True)
        assert [s.id for s in four] == [held.id]
        assert await subscriptions.of_user(session, 2**40) == []


# --- creating ------------------------------------------------------------------------------------


async def test_create_paid_on_terms(insert_user, make_subscription, session_of, rows, outbox, reload):
    user = await insert_user()
    trial = await make_subscription(user, is_trial=True, status="active", tariff_id=None)
    async with session_of() as (session, events, settings):
        row = await subscriptions.create_paid(
            session, events, settings, user, TERMS, now=NOW, panel_actions=["reset_traffic"]
        )
        created_id = row.id
    row = await reload(Subscription, created_id)
    assert (row.status, row.is_trial, row.tariff_id) == ("active", False, 7)
    assert (row.start_date, row.end_date) == (NOW, NOW + timedelta(days=30))
    assert (row.traffic_limit_gb, row.device_limit, row.connected_squads) == (50, 2, ["a", "b"])
    assert row.last_daily_charge_at is None and row.is_daily_paused is False
    assert (await reload(Subscription, trial.id)).status == "disabled"
    assert (await reload(type(user), user.id)).has_had_paid_subscription is True
    changes = [(p["subscription_id"], p["change"], p["panel_actions"]) for _, p in await outbox()]
    assert changes == [(created_id, "created", ["reset_traffic"]), (trial.id, "disabled", [])]


async def test_daily_terms_start_the_daily_charge(insert_user, session_of, reload):
    user = await insert_user()
    daily = Terms(tariff_id=3, days=1, traffic_limit_gb=0, device_limit=1, squads=[], is_daily=True)
    async with session_of() as (session, events, settings):
        sub_id = (await subscriptions.create_paid(session, events, settings, user, daily, now=NOW)).id
    row = await reload(Subscription, sub_id)
    assert (row.end_date, row.last_daily_charge_at, row.autopay_enabled) == (
        NOW + timedelta(days=1),
        NOW,
        False,
    )


async def test_a_second_held_subscription_of_a_tariff_is_refused(
    insert_user, make_subscription, session_of, rows
):
    user = await insert_user()
    await make_subscription(user, tariff_id=7, status="trial")
    async with session_of() as (session, events, settings):
        with pytest.raises(DuplicateTariff, match="You already have an active subscription for this tariff"):
            await subscriptions.create_paid(session, events, settings, user, TERMS, now=NOW)
        # the session is still usable: another tariff is fine
        await subscriptions.create_paid(session, events, settings, user, Terms(8, 30, 0, 1, []), now=NOW)
    assert sorted((s.tariff_id, s.status) for s in await rows(Subscription)) == [(7, "trial"), (8, "active")]


async def test_an_expired_one_does_not_hold_its_tariff(insert_user, make_subscription, session_of, rows):
    user = await insert_user()
    await make_subscription(user, tariff_id=7, status="expired", end_in=timedelta(days=-1))
    async with session_of() as (session, events, settings):
        await subscriptions.create_paid(session, events, settings, user, TERMS, now=NOW)
    assert len(await rows(Subscription)) == 2


async def test_trial_and_pending(insert_user, session_of, reload, outbox):
    user = await insert_user()
    async with session_of() as (session, events, settings):
        trial = await subscriptions.create_trial(session, events, settings, user, TERMS, now=NOW)
        pending = await subscriptions.create_pending(
            session, events, settings, user, Terms(9, 30, 10, 1, ["x"]), now=NOW
        )
        ids = trial.id, pending.id
    trial, pending = [await reload(Subscription, i) for i in ids]
    assert (trial.status, trial.is_trial, trial.autopay_enabled, trial.end_date) == (
        "active",
        True,
        False,
        NOW + timedelta(days=30),
    )
    assert (pending.status, pending.end_date, pending.tariff_id) == ("pending", NOW, 9)
    assert [p["change"] for _, p in await outbox()] == ["created", "created"]
    assert (await reload(type(user), user.id)).has_had_paid_subscription is False


# --- extend with a clock, tariff changes ---------------------------------------------------------


async def test_extend_counts_from_now_given(insert_user, make_subscription, session_of, reload, outbox):
    user = await insert_user()
    sub = await make_subscription(user, status="expired", end_date=NOW - timedelta(days=2))
    async with session_of() as (session, events, _):
        row = await session.get(Subscription, sub.id)
        await subscriptions.extend(session, events, row, 10, now=NOW, panel_actions=["reset_traffic"])
    row = await reload(Subscription, sub.id)
    assert (row.status, row.end_date) == ("active", NOW + timedelta(days=10))
    [(_, payload)] = await outbox()
    assert (payload["change"], payload["panel_actions"]) == ("extended", ["reset_traffic"])


async def test_apply_tariff_starts_a_new_term_with_the_carried_time(
    insert_user, make_subscription, session_of, reload, rows, outbox
):
    user = await insert_user()
    sub = await make_subscription(
        user,
        is_trial=True,
        tariff_id=1,
        end_date=NOW + timedelta(days=3),
        traffic_limit_gb=15,
        purchased_traffic_gb=5,
    )
    async with session_of() as (session, _events, _settings):
        session.add(
            TrafficPurchase(subscription_id=sub.id, traffic_gb=5, expires_at=NOW + timedelta(days=20))
        )
        session.add(TrafficPurchase(subscription_id=sub.id, traffic_gb=7, expires_at=NOW - timedelta(days=1)))
    async with session_of() as (session, events, _):
        row = await session.get(Subscription, sub.id)
        await subscriptions.apply_tariff(session, events, row, TERMS, now=NOW, carry_seconds=3600)
    row = await reload(Subscription, sub.id)
    assert (row.tariff_id, row.status, row.is_trial) == (7, "active", False)
    assert (row.start_date, row.end_date) == (NOW, NOW + timedelta(days=30, hours=1))
    assert (row.traffic_limit_gb, row.purchased_traffic_gb) == (55, 5)  # the live purchase stays on top
    assert (row.device_limit, row.connected_squads) == (2, ["a", "b"])
    assert [p["change"] for _, p in await outbox()] == ["tariff"]


async def test_switch_tariff_keeps_the_end_and_drops_purchased_traffic_when_asked(
    insert_user, make_subscription, session_of, reload, rows
):
    user = await insert_user()
    sub = await make_subscription(
        user, tariff_id=1, traffic_limit_gb=30, purchased_traffic_gb=10, last_daily_charge_at=NOW
    )
    async with session_of() as (session, _events, _settings):
        session.add(
            TrafficPurchase(subscription_id=sub.id, traffic_gb=10, expires_at=NOW + timedelta(days=20))
        )
    end = NOW + timedelta(days=12)
    async with session_of() as (session, events, _):
        row = await session.get(Subscription, sub.id)
        await subscriptions.switch_tariff(
            session, events, row, TERMS, end=end, now=NOW, keep_purchased_traffic=False
        )
    row = await reload(Subscription, sub.id)
    assert (row.tariff_id, row.end_date, row.traffic_limit_gb, row.purchased_traffic_gb) == (7, end, 50, 0)
    assert row.last_daily_charge_at is None  # no longer daily
    assert await rows(TrafficPurchase) == []


async def test_switching_onto_a_held_tariff_is_refused(insert_user, make_subscription, session_of, reload):
    user = await insert_user()
    await make_subscription(user, tariff_id=7)
    sub = await make_subscription(user, tariff_id=1)
    async with session_of() as (session, events, _):
        row = await session.get(Subscription, sub.id)
        with pytest.raises(DuplicateTariff):
            await subscriptions.switch_tariff(
                session, events, row, TERMS, end=NOW, now=NOW, keep_purchased_traffic=True
            )
    assert (await reload(Subscription, sub.id)).tariff_id == 1


async def test_squads_devices_and_the_silent_changes(
    insert_user, make_subscription, session_of, reload, outbox
):
    user = await insert_user()
    sub = await make_subscription(user, connected_squads=["a"], device_limit=1)
    async with session_of() as (session, events, settings):
        row = await session.get(Subscription, sub.id)
        await subscriptions.set_squads(session, events, row, ["a"], now=NOW)  # nothing to publish
        await subscriptions.set_squads(session, events, row, ["b", "c", "b"], now=NOW)
        await subscriptions.add_devices(session, events, settings, row, 2, now=NOW)
        await subscriptions.set_daily_state(session, row, paused=True, last_charge_at=NOW)
        await subscriptions.set_autopay(session, row, True, days_before=5)
        await subscriptions.set_traffic_used(session, sub.id, 12.5, now=NOW)
    row = await reload(Subscription, sub.id)
    assert (row.connected_squads, row.device_limit) == (["b", "c"], 3)
    assert (row.is_daily_paused, row.last_daily_charge_at, row.traffic_used_gb) == (True, NOW, 12.5)
    assert (row.autopay_enabled, row.autopay_days_before) == (True, 5)
    assert [p["change"] for _, p in await outbox()] == ["squads", "devices"]


# --- bulk expiry ---------------------------------------------------------------------------------


async def test_mark_expired_marks_each_once(insert_user, make_subscription, session_of, reload, outbox):
    user = await insert_user()
    ended = [
        await make_subscription(user, end_date=NOW - timedelta(hours=h), status=s, is_trial=s == "trial")
        for h, s in ((3, "active"), (2, "trial"), (1, "active"))
    ]
    running = await make_subscription(user, end_date=NOW + timedelta(hours=1))
    disabled = await make_subscription(user, status="disabled", end_date=NOW - timedelta(days=1))
    async with session_of() as (session, _, _settings):
        first = await subscriptions.mark_expired(session, now=NOW, limit=2)
    async with session_of() as (session, _, _settings):
        second = await subscriptions.mark_expired(session, now=NOW, limit=2)
        third = await subscriptions.mark_expired(session, now=NOW, limit=2)
    assert [r.subscription_id for r in first] == [ended[0].id, ended[1].id]
    assert (
        first[1].is_trial is True and first[0].user_id == user.id and first[0].end_date == ended[0].end_date
    )
    assert [r.subscription_id for r in second] == [ended[2].id] and third == []
    assert {(await reload(Subscription, s.id)).status for s in ended} == {"expired"}
    assert (await reload(Subscription, running.id)).status == "active"
    assert (await reload(Subscription, disabled.id)).status == "disabled"
    assert await outbox() == []


# --- the migration -------------------------------------------------------------------------------


def test_the_migration_adds_the_columns_and_partial_indexes(tmp_path: Path):
    with migrated_database(tmp_path, "subscriptions") as db:
        indexes = db.indexes("subscriptions")
        assert indexes["uq_subscriptions_user_tariff_live"] == ["user_id", "tariff_id"]
        assert indexes["ix_subscriptions_autopay_due"] == ["end_date"]
        assert indexes["ix_subscriptions_daily_due"] == ["last_daily_charge_at"]
        db.round_trip(
            "subscriptions",
            head="subscriptions_0002",
            tables={"subscriptions", "traffic_purchases"},
            kept={"users"},
        )
