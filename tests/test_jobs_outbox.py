"""Subscribers inside the publishing transaction, and rows written from a commit's events
(``EventWrite``, what the webhooks plugin makes its pending deliveries with; on PostgreSQL in
the statement that writes the events): committed with the change and its events, or not at all."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy import FromClause, Insert, String, bindparam, insert, select
from sqlalchemy.orm import Session
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_probe import NoteCreated, ProbeNote

from subsvc.db import UTCDateTime, utcnow
from subsvc.events import EVENTS_PER_STATEMENT, Event, EventWrite, OutboxEvent
from subsvc.testing import recorded_statements

NOTE = {"text": "hello", "amount": 1}


async def notes(db) -> list[str]:
    async with db.session() as session:
        return [n.text for n in (await session.exec(select(ProbeNote).order_by(ProbeNote.id))).scalars()]


async def outbox_ids(db) -> list[int]:
    async with db.session() as session:
        return list((await session.exec(select(OutboxEvent.id).order_by(OutboxEvent.id))).scalars())


@pytest.fixture
def seen(app) -> list[list[Event]]:
    """Subscribes a recorder that also writes a note per event, in the transaction."""
    calls: list[list[Event]] = []

    def record(session: Session, events: list[Event]) -> None:
        assert session.in_transaction()
        calls.append(events)
        for item in events:
            session.execute(insert(ProbeNote).values(text=f"seen {item.type} {item.id}"))

    app.state.events.subscribe_in_transaction(record)
    return calls


async def test_the_subscriber_writes_in_the_same_transaction_as_the_change(app, client, db, seen):
    r = await client.post("/probe/events", json=NOTE)
    assert r.status_code == 201
    (event_id,) = await outbox_ids(db)
    assert [[(e.id, e.type, e.payload) for e in call] for call in seen] == [
        [(event_id, "probe.note_created", {"note_id": r.json()["id"], "text": "hello"})]
    ]
    assert await notes(db) == ["hello", f"seen probe.note_created {event_id}"]


async def test_a_rolled_back_change_leaves_no_subscriber_rows(app, client, db, seen):
    r = await client.post("/probe/events?fail=true", json=NOTE)
    assert r.status_code == 409
    assert seen == []
    assert await notes(db) == []
    assert await outbox_ids(db) == []


async def test_a_failing_subscriber_aborts_the_commit(app, client, db, seen):
    def broken(session: Session, events: list[Event]) -> None:
        raise RuntimeError("subscriber bug")

    app.state.events.subscribe_in_transaction(broken)
    r = await client.post("/probe/events", json=NOTE)
    assert r.status_code == 500
    assert await notes(db) == []  # neither the change, nor the event, nor the first subscriber's row
    assert await outbox_ids(db) == []


async def test_a_session_that_rolled_back_then_commits_reports_only_the_committed_events(app, db, seen):
    events = app.state.events
    async with db.session() as session:
        events.publish(session, "probe.note_created", NoteCreated(note_id=1, text="abandoned"))
        await session.flush()
        await session.rollback()
        events.publish(session, "probe.note_created", NoteCreated(note_id=2, text="kept"))
        await session.commit()
        events.publish(session, "probe.note_created", NoteCreated(note_id=3, text="second commit"))
        await session.commit()
    assert [[e.payload["text"] for e in call] for call in seen] == [["kept"], ["second commit"]]
    assert len(await outbox_ids(db)) == 2


async def test_no_subscriber_means_no_extra_statement(app, client, db):
    with recorded_statements(db) as statements:
        assert (await client.post("/probe/events", json=NOTE)).status_code == 201
    assert [s.split()[0] for s in statements] == ["INSERT"]  # the note (the outbox row is core's)


async def test_a_rolled_back_savepoint_takes_its_events_along(app, db, seen):
    events = app.state.events
    async with db.session() as session:
        events.publish(session, "probe.note_created", NoteCreated(note_id=1, text="before"))
        try:
            async with session.begin_nested():
                events.publish(session, "probe.note_created", NoteCreated(note_id=2, text="undone"))
                raise RuntimeError("the savepoint fails")
        except RuntimeError:
            pass
        events.publish(session, "probe.note_created", NoteCreated(note_id=3, text="after"))
        await session.commit()
    assert [[e.payload["text"] for e in call] for call in seen] == [["before", "after"]]
    async with db.session() as session:
        rows = (await session.exec(select(OutboxEvent).order_by(OutboxEvent.id))).scalars().all()
    assert [row.payload["text"] for row in rows] == ["before", "after"]
    assert [e.id for e in seen[0]] == [row.id for row in rows]


async def test_events_of_a_released_savepoint_are_written_once_with_the_transaction(app, db, seen):
    events = app.state.events
    async with db.session() as session:
        async with session.begin_nested():
            events.publish(session, "probe.note_created", NoteCreated(note_id=1, text="inner"))
        events.publish(session, "probe.note_created", NoteCreated(note_id=2, text="outer"))
        await session.commit()
    assert sorted(e.payload["text"] for call in seen for e in call) == ["inner", "outer"]
    assert len(await outbox_ids(db)) == 2
    assert len(await notes(db)) == 2  # the subscriber's rows: one per event


async def test_a_released_savepoint_in_a_rolled_back_transaction_leaves_nothing(app, db, seen):
    events = app.state.events
    async with db.session() as session:
        async with session.begin_nested():
            events.publish(session, "probe.note_created", NoteCreated(note_id=1, text="inner"))
        await session.rollback()
    assert await outbox_ids(db) == [] and await notes(db) == []


async def test_a_session_made_outside_the_database_gets_the_listeners_too(app, db, seen):
    """The listeners are registered on the database's own session class; a session of
    another class (made directly on the engine) has them registered for its life."""
    async with AsyncSession(db.engine) as session:
        assert not isinstance(session.sync_session, db.session_class)
        session.add(ProbeNote(text="outside"))
        app.state.events.publish(session, "probe.note_created", NoteCreated(note_id=1, text="outside"))
        await session.commit()
    (event_id,) = await outbox_ids(db)
    assert [[e.id for e in call] for call in seen] == [[event_id]]
    assert await notes(db) == ["outside", f"seen probe.note_created {event_id}"]


@pytest.mark.parametrize("statement_before", [False, True])
async def test_the_events_of_a_commit_are_written_in_their_order(app, db, seen, statement_before):
    """One INSERT for all of them (on PostgreSQL straight to the driver once the transaction
    has begun, else through SQLAlchemy, which begins it); ids ascend in publishing order."""
    texts = [f"note {number} «ё»" for number in range(250)]
    async with db.session() as session:
        if statement_before:
            await session.execute(select(OutboxEvent.id).limit(1))
        for number, text in enumerate(texts):
            app.state.events.publish(session, "probe.note_created", NoteCreated(note_id=number, text=text))
        await session.commit()
    async with db.session() as session:
        rows = (await session.exec(select(OutboxEvent).order_by(OutboxEvent.id))).scalars().all()
    assert [(row.payload["note_id"], row.payload["text"]) for row in rows] == list(enumerate(texts))
    assert all(row.created_at.tzinfo is not None for row in rows)
    assert [[e.id for e in call] for call in seen] == [[row.id for row in rows]]
    assert [e.payload["text"] for e in seen[0]] == texts


# --- EventWrite ---------------------------------------------------------------------------------

NOTES: sa.Table = ProbeNote.__table__  # type: ignore[attr-defined]


def seen_notes(events: FromClause, *, only: str | None = None) -> Insert:
    """A note ``<prefix><event type> <event id>`` per event (of type ``only`` if given)."""
    text = bindparam("probe_prefix", type_=String) + events.c.event_type + " " + sa.cast(events.c.id, String)
    selected = sa.select(text, bindparam("probe_now", type_=UTCDateTime)).order_by(events.c.id)
    if only is not None:
        selected = selected.where(events.c.event_type == only)
    return sa.insert(NOTES).from_select(["text", "created_at"], selected)


def register(app, name: str = "probe_seen", **kwargs) -> list[int]:
    """Register a write of :func:`seen_notes`; the counts it reports, one per commit."""
    counts: list[int] = []

    def written(session: Session, count: int) -> None:
        assert session.in_transaction()
        counts.append(count)

    app.state.events.write_with_events(
        EventWrite(
            name,
            lambda events: seen_notes(events, **kwargs),
            lambda: {"probe_prefix": "seen ", "probe_now": utcnow()},
            written,
        )
    )
    return counts


async def test_the_rows_are_written_with_the_events(app, client, db):
    counts = register(app)
    with recorded_statements(db, everything=True) as statements:
        r = await client.post("/probe/events", json=NOTE)
    assert r.status_code == 201
    (event_id,) = await outbox_ids(db)
    assert await notes(db) == ["hello", f"seen probe.note_created {event_id}"]
    assert counts == [1]
    writes = [s for s in statements if "outbox_events" in s and not s.startswith("SELECT")]  # not the claim
    if db.dialect == "postgresql":  # the events and the write: one statement, one round trip
        assert len(writes) == 1 and "INSERT INTO probe_notes" in writes[0]
    else:
        assert len(writes) == 2 and "INSERT INTO probe_notes" in writes[1]


async def test_a_rolled_back_change_writes_nothing(app, client, db):
    counts = register(app)
    r = await client.post("/probe/events?fail=true", json=NOTE)
    assert r.status_code == 409
    assert (await notes(db), await outbox_ids(db), counts) == ([], [], [])


async def test_a_write_that_matches_no_event_reports_zero(app, client, db):
    counts = register(app, only="no.such_type")
    assert (await client.post("/probe/events", json=NOTE)).status_code == 201
    assert await notes(db) == ["hello"]
    assert counts == [0]


async def test_a_failing_write_aborts_the_commit(app, client, db):
    app.state.events.write_with_events(
        EventWrite(
            "probe_broken",
            lambda events: sa.insert(NOTES).from_select(["text"], sa.select(sa.null()).select_from(events)),
            dict,
            lambda session, count: None,
        )
    )
    r = await client.post("/probe/events", json=NOTE)
    assert r.status_code == 500
    assert (await notes(db), await outbox_ids(db)) == ([], [])  # neither the change nor its event


async def test_every_write_gets_its_rows_and_names_are_unique(app, client, db):
    first, second = register(app), register(app, name="probe_again")
    assert (await client.post("/probe/events", json=NOTE)).status_code == 201
    (event_id,) = await outbox_ids(db)
    assert await notes(db) == ["hello", *[f"seen probe.note_created {event_id}"] * 2]
    assert first == second == [1]
    with pytest.raises(ValueError, match="probe_seen"):
        register(app)


async def test_more_events_than_one_statement_takes_are_all_written_in_order(app, db):
    counts = register(app)
    count = EVENTS_PER_STATEMENT + 105
    async with db.session() as session:
        for number in range(count):
            app.state.events.publish(session, "probe.note_created", NoteCreated(note_id=number, text="x"))
        await session.commit()
    ids = await outbox_ids(db)
    assert len(ids) == count
    assert await notes(db) == [f"seen probe.note_created {event_id}" for event_id in ids]
    assert counts == [count]
