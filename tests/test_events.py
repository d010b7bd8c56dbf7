"""Domain events: written in the change's transaction, dispatched after commit, never lost."""

from __future__ import annotations

import asyncio
import functools
import logging
from datetime import datetime, timedelta

import pytest
from sqlmodel import select, update
from subsvc_probe import ProbeNote

from subsvc.app import create_app
from subsvc.db import utcnow
from subsvc.events import Event, OutboxEvent, OutboxFailure, RetryPolicy, UnknownEventType, subscriber_name
from subsvc.testing import wait_until

NOTE = {"text": "hello", "amount": 1}


async def outbox(db) -> list[OutboxEvent]:
    async with db.session() as session:
        return list((await session.exec(select(OutboxEvent).order_by(OutboxEvent.id))).all())


async def test_committed_change_publishes_its_event_after_commit(app, client, db):
    received: list[Event] = []
    app.state.events.subscribe("probe.note_created", received.append)
    r = await client.post("/probe/events", json=NOTE)
    assert r.status_code == 201
    await wait_until(lambda: received)
    assert received[0].type == "probe.note_created"
    assert received[0].payload == {"note_id": r.json()["id"], "text": "hello"}

    async def dispatched() -> list[OutboxEvent] | None:  # marked once subscribers have run
        rows = await outbox(db)
        return rows if rows[0].dispatched_at is not None else None

    rows = await wait_until(dispatched)
    assert [(row.event_type, row.dispatched_at is not None) for row in rows] == [("probe.note_created", True)]


async def test_rolled_back_change_publishes_nothing(app, client, db):
    received: list[Event] = []
    app.state.events.subscribe("*", received.append)
    r = await client.post("/probe/events?fail=true", json=NOTE)
    assert r.status_code == 409
    await asyncio.sleep(0.2)
    assert received == []
    assert await outbox(db) == []
    assert (await client.get("/probe/notes")).json() == []


async def test_events_left_undispatched_are_dispatched_at_the_next_start(subsvc_settings, app, db):
    # the running app's dispatcher stops, as a process that died would: its periodic pass
    # must not take the row before the next start does
    await app.state.events.stop()
    try:
        async with db.session() as session:
            left_over = {"note_id": 1, "text": "left over"}
            session.add(OutboxEvent(event_type="probe.note_created", payload=left_over))
            await session.commit()
        fresh = create_app(subsvc_settings, plugins=["subsvc_probe"])
        received: list[Event] = []
        fresh.state.events.subscribe("probe.note_created", received.append)
        async with fresh.router.lifespan_context(fresh):
            await wait_until(lambda: received)
    finally:
        await app.state.events.start()
    assert received[0].payload["text"] == "left over"
    assert all(row.dispatched_at is not None for row in await outbox(db))


async def test_a_failing_subscriber_does_not_stop_the_others(app, client, rows):
    received: list[Event] = []

    def broken(event: Event) -> None:
        raise RuntimeError("subscriber bug")

    app.state.events.subscribe("probe.note_created", broken)
    app.state.events.subscribe("probe.note_created", received.append)
    assert (await client.post("/probe/events", json=NOTE)).status_code == 201
    await wait_until(lambda: received)
    (failure,) = await wait_until_rows(rows, lambda found: found)
    assert failure.subscriber == subscriber_name(broken)
    assert failure.last_error == "RuntimeError: subscriber bug"


async def test_a_subscriber_may_write_in_a_session_of_its_own(app, client, db):
    """The dispatcher's pass holds no write while it delivers (SQLite has one writer at a
    time: a subscriber's write would wait for the pass, and the pass for the subscriber)."""
    written: list[int] = []

    async def write_a_note(event: Event) -> None:
        async with db.session() as session:
            note = ProbeNote(text=f"seen {event.id}")
            session.add(note)
            await session.commit()
            written.append(event.id)

    app.state.events.subscribe("probe.note_created", write_a_note)
    assert (await client.post("/probe/events", json=NOTE)).status_code == 201
    await wait_until(lambda: written, seconds=3.0)  # the write gate would give up after 5 s
    (row,) = await outbox(db)
    assert written == [row.id]
    async with db.session() as session:
        texts = (await session.exec(select(ProbeNote.text).order_by(ProbeNote.id))).all()
    assert texts == ["hello", f"seen {row.id}"]


def test_unknown_types_and_bad_payloads_are_refused(app):
    with pytest.raises(UnknownEventType):
        app.state.events.subscribe("nobody.declared", print)
    with pytest.raises(UnknownEventType):
        app.state.events.publish(None, "nobody.declared", {})
    with pytest.raises(Exception, match="note_id"):
        app.state.events.publish(None, "probe.note_created", {"text": "no id"})


def test_the_catalogue_lists_declared_types(app):
    assert set(app.state.events.catalogue) == {"probe.note_created"}


class Clock:
    """The dispatcher's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = utcnow()

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(app) -> Clock:
    moved = Clock()
    app.state.events.clock = moved
    return moved


async def wait_until_rows(rows, predicate, seconds: float = 5.0) -> list[OutboxFailure]:
    """The failure rows once ``predicate(rows)`` holds."""
    for _ in range(int(seconds / 0.02)):
        found = await rows(OutboxFailure)
        if predicate(found):
            return found
        await asyncio.sleep(0.02)
    raise AssertionError(f"failures not as expected in time: {found}")


class Flaky:
    """A subscriber that fails its first ``failures`` calls, then writes a note per event
    (unless the event's note exists: idempotent)."""

    def __init__(self, db, failures: int) -> None:
        self.db = db
        self.failures = failures
        self.calls: list[int] = []

    async def __call__(self, event: Event) -> None:
        self.calls.append(event.id)
        if len(self.calls) <= self.failures:
            raise ConnectionError(f"database blip {len(self.calls)}")
        text = f"effect of {event.id}"
        async with self.db.session() as session:
            if (await session.exec(select(ProbeNote).where(ProbeNote.text == text))).first() is None:
                session.add(ProbeNote(text=text))
                await session.commit()


async def test_a_failed_subscriber_is_retried_with_backoff_until_it_succeeds(app, client, db, rows, clock):
    events = app.state.events
    flaky, sibling = Flaky(db, failures=2), []
    events.subscribe("probe.note_created", flaky)
    events.subscribe("probe.note_created", sibling.append)
    assert (await client.post("/probe/events", json=NOTE)).status_code == 201
    (event,) = await outbox(db)

    (failure,) = await wait_until_rows(rows, lambda found: found)
    base = events.retry.base_seconds
    assert (failure.event_id, failure.attempts, failure.last_error) == (
        event.id,
        1,
        "ConnectionError: database blip 1",
    )
    assert failure.next_attempt_at == clock.now + timedelta(seconds=base)
    assert flaky.calls == [event.id]

    clock.advance(base - 1)  # not due yet: nobody calls it
    assert await events.retry_failed() == 0

    clock.advance(1)
    events.wake()
    (failure,) = await wait_until_rows(rows, lambda found: found and found[0].attempts == 2)
    assert failure.next_attempt_at == clock.now + timedelta(seconds=base * events.retry.factor)
    assert failure.last_error == "ConnectionError: database blip 2"

    clock.advance(base * events.retry.factor)
    events.wake()
    await wait_until_rows(rows, lambda found: not found)  # succeeded: the failure is gone
    assert flaky.calls == [event.id] * 3
    assert [e.id for e in sibling] == [event.id]  # the sibling that succeeded was called once
    clock.advance(24 * 3600)
    assert await events.retry_failed() == 0
    async with db.session() as session:
        texts = (await session.exec(select(ProbeNote.text).order_by(ProbeNote.id))).all()
    assert texts == ["hello", f"effect of {event.id}"]  # the effect happened once
    assert (await outbox(db))[0].dispatched_at is not None


def test_backoff_grows_by_the_factor_up_to_the_maximum_and_stops_at_the_last_attempt():
    policy = RetryPolicy(base_seconds=10, factor=2, max_seconds=60, max_attempts=6)
    waits = [policy.delay(attempts) for attempts in range(1, 7)]
    assert waits == [timedelta(seconds=s) for s in (10, 20, 40, 60, 60)] + [None]
    assert RetryPolicy(max_attempts=10**6, max_seconds=5).delay(10**5) == timedelta(seconds=5)


async def test_after_the_last_attempt_the_failure_stays_recorded(app, client, db, rows, clock, caplog):
    events = app.state.events
    events.retry = RetryPolicy(base_seconds=5, max_attempts=2)
    flaky = Flaky(db, failures=10)
    events.subscribe("probe.note_created", flaky)
    with caplog.at_level(logging.WARNING, logger="subsvc.events"):
        assert (await client.post("/probe/events", json=NOTE)).status_code == 201
        await wait_until_rows(rows, lambda found: found)
        clock.advance(5)
        events.wake()
        (failure,) = await wait_until_rows(rows, lambda found: found and found[0].attempts == 2)
    assert failure.next_attempt_at is None  # given up
    assert failure.last_error == "ConnectionError: database blip 2"
    clock.advance(30 * 24 * 3600)
    assert await events.retry_failed() == 0
    assert len(flaky.calls) == 2
    levels = [
        r.levelno
        for r in caplog.records
        if r.name == "subsvc.events" and "failed for event" in r.getMessage()
    ]
    assert levels == [logging.WARNING, logging.ERROR]
    health = (await client.get("/health/database")).json()
    assert health["event_failures"] == {"retrying": 0, "given_up": 1}


async def test_two_instances_never_retry_one_failure_at_once(subsvc_settings, app, db, rows):
    if db.dialect != "postgresql":
        pytest.skip("instances share a database on PostgreSQL")
    entered, release = asyncio.Event(), asyncio.Event()
    calls: list[str] = []

    async def hold(instance: str, event: Event) -> None:
        calls.append(instance)
        if len(calls) == 1:
            raise ConnectionError("first call fails")
        entered.set()
        await release.wait()

    first = app.state.events
    await first.stop()  # passes run when the test says
    try:
        other_app = create_app(subsvc_settings, plugins=["subsvc_probe"])
        async with other_app.router.lifespan_context(other_app):
            other = other_app.state.events
            await other.stop()
            first.subscribe("probe.note_created", functools.partial(hold, "first"))
            other.subscribe("probe.note_created", functools.partial(hold, "other"))
            async with db.session() as session:
                session.add(OutboxEvent(event_type="probe.note_created", payload={"note_id": 1, "text": "x"}))
                await session.commit()
            assert await first.dispatch_pending() == 1
            later = utcnow() + timedelta(hours=1)
            first.clock = other.clock = lambda: later
            retrying = asyncio.create_task(first.retry_failed())
            await asyncio.wait_for(entered.wait(), 5)
            # claimed by the first instance: skipped, not waited for
            assert await asyncio.wait_for(other.retry_failed(), 10) == 0
            release.set()
            assert await retrying == 1
            assert await other.retry_failed() == 0  # done: nothing left
    finally:
        await first.start()
    assert calls == ["first", "first"]
    assert await rows(OutboxFailure) == []


def test_subscribers_an_event_reaches_have_different_names(app):
    events = app.state.events

    async def handler(tag: str, event: Event) -> None:
        pass

    events.subscribe("probe.note_created", functools.partial(handler, "a"))
    assert events.subscribers["probe.note_created"][0].name == f"{__name__}.{handler.__qualname__}"
    with pytest.raises(ValueError, match="pass another name"):
        events.subscribe("*", functools.partial(handler, "b"))
    events.subscribe("*", functools.partial(handler, "b"), name="handler-b")
    with pytest.raises(ValueError, match="handler-b"):
        events.subscribe("probe.note_created", print, name="handler-b")


async def test_an_event_dispatched_again_keeps_its_recorded_failure(app, db, rows):
    """An event delivered twice (two processes on one SQLite file both took it) fails its
    subscriber twice: the dispatch still completes, with the one failure recorded first."""
    events = app.state.events
    await events.stop()  # passes run when the test says
    try:
        flaky = Flaky(db, failures=2)
        events.subscribe("probe.note_created", flaky)
        async with db.session() as session:
            session.add(OutboxEvent(event_type="probe.note_created", payload={"note_id": 1, "text": "x"}))
            await session.commit()
        assert await events.dispatch_pending() == 1
        async with db.session() as session:
            await session.exec(update(OutboxEvent).values(dispatched_at=None))
            await session.commit()
        assert await events.dispatch_pending() == 1
    finally:
        await events.start()
    (failure,) = await rows(OutboxFailure)
    assert (failure.attempts, failure.last_error) == (1, "ConnectionError: database blip 1")
    assert len(flaky.calls) == 2
    assert all(row.dispatched_at is not None for row in await outbox(db))
