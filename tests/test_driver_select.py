"""``DriverSelect``: on PostgreSQL rows straight from the driver, the same as SQLAlchemy's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from subsvc.db import DriverSelect, DriverWrite, in_list
from subsvc.events import OutboxEvent

OUTBOX = OutboxEvent.__table__
MOSCOW = timezone(timedelta(hours=3))


def _events_query(dialect: str) -> DriverSelect:
    return DriverSelect(
        sa.select(OUTBOX, OUTBOX.c.event_type.label("kind"))
        .where(
            in_list(OUTBOX.c.id, "ids", dialect),
            OUTBOX.c.created_at >= sa.bindparam("since", type_=OUTBOX.c.created_at.type),
        )
        .order_by(OUTBOX.c.id)
    )


async def test_rows_from_the_driver_equal_sqlalchemys_rows(db):
    moment = datetime(2026, 11, 22, 12, 30, 15, 123456, tzinfo=UTC)
    nested = {"text": "Привет", "list": [1, {"x": None}]}
    async with db.session() as session:
        events = [
            OutboxEvent(event_type="a", payload=nested, created_at=moment),
            OutboxEvent(event_type="b", payload={}, created_at=moment, dispatched_at=moment),
            OutboxEvent(event_type="c", payload={"old": True}, created_at=moment - timedelta(days=1)),
        ]
        session.add_all(events)
        await session.commit()
    query = _events_query(db.dialect)
    # a bound datetime in another zone is converted as SQLAlchemy converts it
    params = {"ids": [e.id for e in events], "since": moment.astimezone(MOSCOW)}
    async with db.session() as session:
        direct = [dict(row) for row in await query.mappings(session, params)]
        usual = [dict(row) for row in (await session.execute(query.statement, params)).mappings()]
    assert direct == usual
    assert [(row["event_type"], row["kind"], row["payload"]) for row in direct] == [
        ("a", "a", nested),
        ("b", "b", {}),
    ]
    assert direct[0]["created_at"] == moment and direct[0]["created_at"].tzinfo is not None
    assert direct[0]["dispatched_at"] is None and direct[1]["dispatched_at"] == moment
    async with db.session() as session:
        dialect = (await session.connection()).dialect
    assert (query.driver_form(dialect, params) is not None) == (db.dialect == "postgresql")


async def test_a_column_sqlalchemy_converts_is_read_the_usual_way(db):
    as_float = sa.cast(OUTBOX.c.id, sa.Numeric(10, 2, asdecimal=False)).label("number")
    query = DriverSelect(sa.select(as_float).where(OUTBOX.c.event_type == sa.bindparam("kind")))
    async with db.session() as session:
        session.add(OutboxEvent(event_type="n", payload={}))
        await session.commit()
    async with db.session() as session:
        (row,) = await query.mappings(session, {"kind": "n"})
        assert query.driver_form((await session.connection()).dialect, {"kind": "n"}) is None
    assert row["number"] == 1
    if db.dialect == "postgresql":  # where asyncpg alone would give a Decimal
        assert type(row["number"]) is float


async def test_a_float_column_comes_from_the_driver_as_it_is(db):
    """Whether SQLAlchemy converts a number depends on the database's type of the column."""
    as_double = sa.cast(OUTBOX.c.id, sa.Float()).label("number")
    query = DriverSelect(sa.select(as_double).where(OUTBOX.c.event_type == sa.bindparam("kind")))
    async with db.session() as session:
        session.add(OutboxEvent(event_type="f", payload={}))
        await session.commit()
    async with db.session() as session:
        assert [row["number"] for row in await query.mappings(session, {"kind": "f"})] == [1.0]
        dialect = (await session.connection()).dialect
    assert (query.driver_form(dialect, {"kind": "f"}) is not None) == (db.dialect == "postgresql")


async def test_the_read_sees_its_own_transaction(db):
    query = DriverSelect(sa.select(OUTBOX.c.event_type).where(OUTBOX.c.event_type == sa.bindparam("kind")))
    async with db.session() as session:
        session.add(OutboxEvent(event_type="pending", payload={}))
        await session.flush()
        assert [row["event_type"] for row in await query.mappings(session, {"kind": "pending"})] == [
            "pending"
        ]
        await session.rollback()
    async with db.session() as session:
        assert await query.mappings(session, {"kind": "pending"}) == []


def _events_by_id(dialect: str, short: bool) -> DriverSelect:
    return DriverSelect(
        sa.select(OUTBOX.c.id, OUTBOX.c.event_type)
        .where(in_list(OUTBOX.c.id, "ids", dialect, short=short))
        .order_by(OUTBOX.c.id)
    )


async def test_a_short_list_gives_the_rows_of_its_items(db):
    async with db.session() as session:
        events = [OutboxEvent(event_type=kind, payload={}) for kind in "abc"]
        session.add_all(events)
        await session.commit()
    a, b, c = (event.id for event in events)
    for short in (True, False):
        query = _events_by_id(db.dialect, short)
        async with db.session() as session:
            for ids, kinds in (
                ([], []),
                ([b], ["b"]),
                ([c, a], ["a", "c"]),
                ([a, b, c, c + 1], ["a", "b", "c"]),
            ):
                direct = [dict(row) for row in await query.mappings(session, {"ids": ids})]
                usual = [
                    dict(row) for row in (await session.execute(query.statement, {"ids": ids})).mappings()
                ]
                assert direct == usual
                assert [row["event_type"] for row in direct] == kinds


async def test_postgresql_keeps_one_plan_for_a_short_list(db):
    """An array parameter is planned at every execution; a short list's statement once."""
    if db.dialect != "postgresql":
        pytest.skip("PostgreSQL's plan cache")
    plans = sa.text(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = :statement"
    )
    found = {}
    for short in (True, False):
        query = _events_by_id(db.dialect, short)
        async with db.session() as session:
            dialect = (await session.connection()).dialect
            form = query.driver_form(dialect, {"ids": [1]})
            assert form is not None
            for _ in range(10):
                await query.mappings(session, {"ids": [1]})
            found[short] = (await session.execute(plans, {"statement": form[0]})).one()
    assert found[True].generic_plans >= 5 and found[True].custom_plans <= 5
    assert found[False].generic_plans == 0 and found[False].custom_plans == 10


def _mark_dispatched(dialect: str) -> DriverWrite:
    return DriverWrite(
        sa.update(OUTBOX)
        .where(in_list(OUTBOX.c.id, "ids", dialect, short=True))
        .values(dispatched_at=sa.bindparam("now", type_=OUTBOX.c.dispatched_at.type))
    )


async def test_a_write_counts_its_rows_and_belongs_to_the_transaction(db):
    """Run first in a transaction (SQLAlchemy begins it) or after a statement (straight to the
    driver on PostgreSQL): either way its rows roll back with the transaction."""
    moment = datetime(2026, 11, 23, 4, 0, tzinfo=UTC)
    async with db.session() as session:
        events = [OutboxEvent(event_type=kind, payload={}) for kind in "ab"]
        session.add_all(events)
        await session.commit()
    ids = [event.id for event in events]
    write = _mark_dispatched(db.dialect)
    sent_by_sqlalchemy: list[str] = []

    def note(conn, cursor, statement, parameters, context, executemany):
        sent_by_sqlalchemy.append(statement)

    sa.event.listen(db.engine.sync_engine, "before_cursor_execute", note)
    try:
        for first in (True, False):
            async with db.session() as session:
                if not first:
                    await session.execute(sa.select(OUTBOX.c.id).limit(1))
                sent_by_sqlalchemy.clear()
                params = {"ids": [*ids, ids[-1] + 1], "now": moment}
                assert await session.run_sync(lambda sync: write.run(sync, params)) == 2
                through_driver = not sent_by_sqlalchemy
                assert through_driver == (db.dialect == "postgresql" and not first)
                marked = await session.execute(sa.select(OUTBOX.c.dispatched_at).where(OUTBOX.c.id.in_(ids)))
                assert [row.dispatched_at for row in marked] == [moment, moment]
                await session.rollback()
            async with db.session() as session:
                after = await session.execute(sa.select(OUTBOX.c.dispatched_at).where(OUTBOX.c.id.in_(ids)))
                assert [row.dispatched_at for row in after] == [None, None]
    finally:
        sa.event.remove(db.engine.sync_engine, "before_cursor_execute", note)


async def test_literals_in_the_statement_keep_their_values(db):
    query = DriverSelect(
        sa.select(OUTBOX.c.event_type, sa.literal(7, sa.Integer).label("seven")).where(
            OUTBOX.c.event_type == sa.literal("kept", sa.String), OUTBOX.c.id > sa.bindparam("after")
        )
    )
    async with db.session() as session:
        session.add_all([OutboxEvent(event_type=kind, payload={}) for kind in ("kept", "other")])
        await session.commit()
    async with db.session() as session:
        rows = await query.mappings(session, {"after": 0})
        assert [dict(row) for row in rows] == [{"event_type": "kept", "seven": 7}]
        assert (query.driver_form((await session.connection()).dialect, {}) is not None) == (
            db.dialect == "postgresql"
        )


async def test_a_write_returns_its_rows(db):
    names = ("event_type", "payload", "created_at")
    write = DriverWrite(
        sa.insert(OUTBOX)
        .values({name: sa.bindparam(name, type_=OUTBOX.c[name].type) for name in names})
        .returning(OUTBOX.c.id, OUTBOX.c.event_type)
    )
    async with db.session() as session:
        await session.execute(sa.select(OUTBOX.c.id).limit(1))  # begins the transaction
        params = {
            "event_type": "returned",
            "payload": {"n": 1},
            "created_at": datetime(2026, 11, 23, tzinfo=UTC),
        }
        ((event_id, kind),) = await session.run_sync(lambda sync: write.rows(sync, params))
        await session.commit()
    assert kind == "returned"
    async with db.session() as session:
        stored = (
            await session.execute(sa.select(OUTBOX.c.payload).where(OUTBOX.c.id == event_id))
        ).scalar_one()
    assert stored == {"n": 1}
