"""Domain events: written in the change's transaction, dispatched after commit, never lost."""

from __future__ import annotations

import asyncio

import pytest
from sqlmodel import select
from subsvc_probe import ProbeNote

from subsvc.app import create_app
from subsvc.events import Event, OutboxEvent, UnknownEventType

NOTE = {"text": "hello", "amount": 1}


async def outbox(db) -> list[OutboxEvent]:
    async with db.session() as session:
        return list((await session.exec(select(OutboxEvent).order_by(OutboxEvent.id))).all())


async def wait_for(predicate, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if predicate():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not met in time")


async def test_committed_change_publishes_its_event_after_commit(app, client, db):
    received: list[Event] = []
    app.state.events.subscribe("probe.note_created", received.append)
    r = await client.post("/probe/events", json=NOTE)
    assert r.status_code == 201
    await wait_for(lambda: received)
    assert received[0].type == "probe.note_created"
    assert received[0].payload == {"note_id": r.json()["id"], "text": "hello"}
    for _ in range(100):  # the dispatcher marks the row once subscribers have run
        rows = await outbox(db)
        if rows[0].dispatched_at is not None:
            break
        await asyncio.sleep(0.02)
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
            await wait_for(lambda: received)
    finally:
        await app.state.events.start()
    assert received[0].payload["text"] == "left over"
    assert all(row.dispatched_at is not None for row in await outbox(db))


async def test_a_failing_subscriber_does_not_stop_the_others(app, client):
    received: list[Event] = []

    def broken(event: Event) -> None:
        raise RuntimeError("subscriber bug")

    app.state.events.subscribe("probe.note_created", broken)
    app.state.events.subscribe("probe.note_created", received.append)
    assert (await client.post("/probe/events", json=NOTE)).status_code == 201
    await wait_for(lambda: received)


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
    await wait_for(lambda: written, seconds=3.0)  # the write gate would give up after 5 s
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
