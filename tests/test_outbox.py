"""The outbox's upkeep: the dispatcher's claim reads the pending rows only, old dispatched
rows are pruned."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import text

from subsvc.db import utcnow
from subsvc.events import OutboxEvent, OutboxFailure, _dispatch_statements, prune_outbox

DISPATCHED = 100_000
SEED = """
INSERT INTO outbox_events (event_type, payload, created_at, dispatched_at)
SELECT 'probe.note_created', '{}', now(), now() FROM generate_series(1, :size)
"""


@pytest.fixture
async def quiet_outbox(app):
    """The app's dispatcher and jobs stopped (the prune job also runs at start, maybe late
    under load): rows stay as the test writes them."""
    await app.state.jobs.stop()
    await app.state.events.stop()
    return app


async def add(db, *rows: tuple[timedelta, bool]) -> list[int]:
    """Events created ``age`` ago, dispatched or not; their ids."""
    now = utcnow()
    async with db.session() as session:
        events = [
            OutboxEvent(
                event_type="probe.note_created",
                payload={},
                created_at=now - age,
                dispatched_at=now - age if dispatched else None,
            )
            for age, dispatched in rows
        ]
        session.add_all(events)
        await session.commit()
    return [event.id for event in events]


async def test_the_claim_reads_the_pending_rows_only(quiet_outbox, db):
    if db.dialect != "postgresql":
        pytest.skip("the plan of a large table is PostgreSQL's")
    async with db.engine.begin() as connection:
        await connection.execute(text(SEED), {"size": DISPATCHED})
    pending = await add(db, (timedelta(0), False), (timedelta(0), False))
    async with db.engine.connect() as connection:
        await (await connection.execution_options(isolation_level="AUTOCOMMIT")).execute(
            text("VACUUM ANALYZE outbox_events")
        )
        claim, _ = _dispatch_statements(db.dialect)
        sql = str(claim.compile(dialect=connection.dialect, compile_kwargs={"literal_binds": True}))
        plan = "\n".join(
            (await connection.execute(text("EXPLAIN " + sql), {"limit": 100, "now": utcnow()})).scalars()
        )
    assert "ix_outbox_events_pending" in plan, plan  # the claim walks the pending rows' index
    lines = plan.splitlines()
    for number, line in enumerate(lines):  # and the primary key only finds the claimed rows
        if "outbox_events_pkey" in line:
            assert "Index Cond: (id = " in lines[number + 1], plan
    assert await quiet_outbox.state.events.dispatch_pending() == len(pending)


async def test_old_dispatched_events_are_pruned_in_batches(quiet_outbox, db, rows):
    week, day = timedelta(days=8), timedelta(days=1)
    old = await add(db, *[(week, True)] * 5)
    kept = await add(db, (week, False), (day, True), (day, False))
    assert await prune_outbox(db, timedelta(days=7), batch=2) == len(old)
    assert [event.id for event in await rows(OutboxEvent)] == kept
    assert await prune_outbox(db, timedelta(days=7), batch=2) == 0


async def test_pruning_keeps_the_events_of_recorded_failures(quiet_outbox, db, rows):
    week = timedelta(days=8)
    retrying, given_up, done = await add(db, (week, True), (week, True), (week, True))
    now = utcnow()
    async with db.session() as session:
        for event_id, next_attempt_at in ((retrying, now), (given_up, None)):
            session.add(
                OutboxFailure(
                    event_id=event_id,
                    subscriber="probe.subscriber",
                    attempts=3,
                    next_attempt_at=next_attempt_at,
                    last_error="RuntimeError: down",
                    failed_at=now - week,
                    last_attempt_at=now,
                )
            )
        await session.commit()
    assert await prune_outbox(db, timedelta(days=7), batch=2) == 1
    assert [event.id for event in await rows(OutboxEvent)] == [retrying, given_up]
    assert done not in [failure.event_id for failure in await rows(OutboxFailure)]


async def test_the_prune_job_keeps_the_outbox_when_retention_is_off(quiet_outbox, db, rows):
    old = await add(db, (timedelta(days=30), True))
    assert "core.outbox_prune" in quiet_outbox.state.jobs.declared
    job = quiet_outbox.state.jobs.declared["core.outbox_prune"]
    quiet_outbox.state.settings = quiet_outbox.state.settings.model_copy(update={"OUTBOX_RETENTION_DAYS": 0})
    await job.run(quiet_outbox)
    assert [event.id for event in await rows(OutboxEvent)] == old
    quiet_outbox.state.settings = quiet_outbox.state.settings.model_copy(update={"OUTBOX_RETENTION_DAYS": 7})
    await job.run(quiet_outbox)
    assert await rows(OutboxEvent) == []
