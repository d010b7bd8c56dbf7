"""Domain events through a transactional outbox.

A service publishes an event inside its database transaction (``publish(session, ...)``):
the event becomes an ``outbox_events`` row of that same transaction, so it exists exactly
when the change that raised it was committed. After the commit the dispatcher hands new
rows to the subscribers of this process (and, through the bus, to other instances'
listeners) and marks them dispatched; rows left behind by a crash are dispatched at the
next start. A subscriber that raises leaves an ``outbox_failures`` row for that event and
that subscriber alone: the dispatcher calls it again with exponential backoff (the
``OUTBOX_RETRY_*`` settings) until it succeeds or its attempts run out (then the row stays,
logged as an error). Delivery to each subscriber is therefore at least once.

Plugins that must record something *with* the event subscribe in the transaction
(``subscribe_in_transaction``): they are called inside the publishing transaction, just
before it commits, so their rows are committed or rolled back together with the change and
its event. Rows made from the events alone (the webhooks plugin's pending deliveries) are an
:class:`EventWrite`: on PostgreSQL part of the very statement that writes the events.

Plugins declare their event types and payload models with the ``register_events`` hook.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import logging
import math
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy import (
    JSON,
    Column,
    Delete,
    FromClause,
    Index,
    Insert,
    Select,
    Text,
    UniqueConstraint,
    Update,
    bindparam,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session, SessionTransaction
from sqlmodel import Field, SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.backoff import Backoff
from subsvc.bus import Bus
from subsvc.db import Database, DriverWrite, UTCDateTime, in_list, is_database_unavailable, storable, utcnow

log = logging.getLogger("subsvc.events")
BUS_CHANNEL = "events"
_PENDING_KEY = "subsvc.events.pending"
STOP_SECONDS = 5.0
_PENDING = sa.text("dispatched_at IS NULL")
_RETRYING = sa.text("next_attempt_at IS NOT NULL")
SUBSCRIBER_NAME_CHARS = 200
ERROR_CHARS = 2000


class OutboxEvent(SQLModel, table=True):
    """An event raised by a committed change, waiting for (or done with) dispatch."""

    __tablename__ = "outbox_events"

    __table_args__ = (
        # the dispatcher's claim: the pending rows' ids only (see core_0003)
        Index("ix_outbox_events_pending", "id", postgresql_where=_PENDING, sqlite_where=_PENDING),
    )

    id: int | None = Field(default=None, primary_key=True)
    event_type: str = Field(max_length=100)
    payload: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    dispatched_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class OutboxFailure(SQLModel, table=True):
    """A subscriber's failed call for one event: retried at ``next_attempt_at`` (``None``:
    given up after ``attempts`` calls). Deleted when a retry succeeds."""

    __tablename__ = "outbox_failures"

    __table_args__ = (
        UniqueConstraint("event_id", "subscriber", name="uq_outbox_failures_event_subscriber"),
        # the retry claim: the due rows only (see core_0005)
        Index(
            "ix_outbox_failures_due", "next_attempt_at", postgresql_where=_RETRYING, sqlite_where=_RETRYING
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="outbox_events.id")
    subscriber: str = Field(max_length=SUBSCRIBER_NAME_CHARS)
    attempts: int
    next_attempt_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    last_error: str = Field(sa_column=Column(Text, nullable=False))
    failed_at: datetime = Field(sa_type=UTCDateTime)
    last_attempt_at: datetime = Field(sa_type=UTCDateTime)


@dataclass(frozen=True)
class RetryPolicy(Backoff):
    """When a failed subscriber is called again (core's ``OUTBOX_RETRY_*`` settings)."""

    base_seconds: float = 10.0
    factor: float = 2.0
    max_seconds: float = 3600.0
    max_attempts: int = 20

    def delay(self, attempts: int) -> timedelta | None:
        """The wait after the ``attempts``-th failed call; ``None`` when that was the last."""
        if attempts >= self.max_attempts:
            return None
        return timedelta(seconds=self.seconds(attempts))


@dataclass(frozen=True)
class Event:
    """What subscribers receive."""

    id: int
    type: str
    payload: dict[str, Any]
    created_at: datetime

    def to_json(self) -> str:
        return json.dumps(
            {
                "id": self.id,
                "type": self.type,
                "payload": self.payload,
                "created_at": self.created_at.isoformat(),
            }
        )


Subscriber = Callable[[Event], Awaitable[None] | None]
TransactionSubscriber = Callable[[Session, list[Event]], None]


def subscriber_name(subscriber: Callable[..., Any]) -> str:
    """A subscriber's default name: the module and qualified name of its function (of the
    function a :func:`functools.partial` wraps; of the class of a callable object)."""
    inner: Any = subscriber
    while isinstance(inner, functools.partial):
        inner = inner.func
    qualname = getattr(inner, "__qualname__", None) or type(inner).__qualname__
    module = getattr(inner, "__module__", None)
    return f"{module}.{qualname}" if module else str(qualname)


@dataclass(frozen=True)
class Subscription:
    """A subscriber and its stable name, which its failures are recorded under; calling it
    calls the subscriber."""

    name: str
    subscriber: Subscriber

    def __call__(self, event: Event) -> Awaitable[None] | None:
        return self.subscriber(event)


@dataclass(frozen=True)
class _Failed:
    """A subscriber's call that raised, to record."""

    event_id: int
    subscriber: str
    error: str


@functools.cache
def _dispatch_statements(dialect: str) -> tuple[Select[Any] | Update, Update | None]:
    """The dispatcher's claim of the oldest pending rows, and the mark to run after their
    delivery (``None``: the claim marks them), built once.

    PostgreSQL: ``UPDATE outbox_events SET dispatched_at = :now WHERE id IN (SELECT id ...
    WHERE dispatched_at IS NULL ORDER BY id LIMIT :limit FOR UPDATE SKIP LOCKED) RETURNING
    ...``, one round trip (the mark holds only if the pass commits). Elsewhere a ``SELECT``,
    and an ``UPDATE`` after the delivery: SQLite has one writer at a time, and a subscriber
    that writes in a session of its own would wait for the end of the dispatcher's write."""
    table: sa.Table = OutboxEvent.__table__  # type: ignore[attr-defined]
    columns = (table.c.id, table.c.event_type, table.c.payload, table.c.created_at)
    marked: dict[str, Any] = {"dispatched_at": bindparam("now")}
    pending = sa.select(table.c.id).where(table.c.dispatched_at.is_(None)).order_by(table.c.id)
    if dialect == "postgresql":
        claimed = pending.limit(bindparam("limit")).with_for_update(skip_locked=True).scalar_subquery()
        return update(table).where(table.c.id.in_(claimed)).values(marked).returning(*columns), None
    claim = (
        sa.select(*columns)
        .where(table.c.dispatched_at.is_(None))
        .order_by(table.c.id)
        .limit(bindparam("limit"))
    )
    return claim, update(table).where(in_list(table.c.id, "ids", dialect)).values(marked)


@functools.cache
def _retry_statements(dialect: str) -> tuple[Select[Any], Delete, Update]:
    """The retry pass's claim of the due failures of the subscribers named ``names``, oldest
    due first, with their events (PostgreSQL: ``FOR UPDATE OF outbox_failures SKIP LOCKED``,
    so an instance skips the failures another is retrying); the deletion of those that
    succeeded; the update of those that failed again (executemany)."""
    failures: sa.Table = OutboxFailure.__table__  # type: ignore[attr-defined]
    events: sa.Table = OutboxEvent.__table__  # type: ignore[attr-defined]
    claim = (
        sa.select(
            failures.c.id,
            failures.c.event_id,
            failures.c.subscriber,
            failures.c.attempts,
            events.c.event_type,
            events.c.payload,
            events.c.created_at,
        )
        .join_from(failures, events, failures.c.event_id == events.c.id)
        .where(
            failures.c.next_attempt_at <= bindparam("now"),
            failures.c.subscriber.in_(bindparam("names", expanding=True)),
        )
        .order_by(failures.c.next_attempt_at, failures.c.id)
        .limit(bindparam("limit"))
    )
    if dialect == "postgresql":
        claim = claim.with_for_update(of=failures, skip_locked=True)
    succeeded = sa.delete(failures).where(in_list(failures.c.id, "ids", dialect))
    failed_again = (
        update(failures)
        .where(failures.c.id == bindparam("failure_id"))
        .values(
            attempts=bindparam("new_attempts"),
            next_attempt_at=bindparam("new_next_attempt_at", type_=UTCDateTime),
            last_error=bindparam("new_last_error"),
            last_attempt_at=bindparam("new_last_attempt_at", type_=UTCDateTime),
        )
    )
    return claim, succeeded, failed_again


@functools.cache
def _failure_insert(dialect: str) -> Insert:
    """The failure rows of a dispatch pass; a failure recorded already for that event and
    subscriber (an event two processes dispatched, on SQLite) is left as it is."""
    table: sa.Table = OutboxFailure.__table__  # type: ignore[attr-defined]
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(table).on_conflict_do_nothing(index_elements=["event_id", "subscriber"])


@functools.cache
def _next_retry_statement() -> Select[Any]:
    """The earliest due time among the failures of the subscribers named ``names``."""
    failures: sa.Table = OutboxFailure.__table__  # type: ignore[attr-defined]
    return sa.select(sa.func.min(failures.c.next_attempt_at)).where(
        failures.c.next_attempt_at.is_not(None), failures.c.subscriber.in_(bindparam("names", expanding=True))
    )


@functools.cache
def _outbox_insert() -> Insert:
    """All of a commit's events in one INSERT, their ids returned in the values' order."""
    table: sa.Table = OutboxEvent.__table__  # type: ignore[attr-defined]
    return sa.insert(table).returning(table.c.id, sort_by_parameter_order=True)


@dataclass(frozen=True)
class EventWrite:
    """Rows a plugin writes from every commit's events (the webhooks plugin's pending
    deliveries), in the publishing transaction: on PostgreSQL inside the statement that writes
    the events (a data-modifying CTE, no round trip of its own), elsewhere in a statement
    after it, per :data:`EVENTS_PER_STATEMENT` events.

    ``insert(events)`` builds the ``INSERT ... SELECT`` from ``events``, rows with the
    columns ``id``, ``event_type`` and ``payload`` of the commit's written events; it is built
    once. ``parameters()`` gives its bind parameters' values at each commit (prefix their
    names with ``name``: the statement is shared). ``written(session, count)`` is called in the
    transaction with how many rows it wrote.
    """

    name: str
    insert: Callable[[FromClause], Insert]
    parameters: Callable[[], Mapping[str, Any]]
    written: Callable[[Session, int], None]


EVENTS_PER_STATEMENT = 500
"""The events an :class:`EventWrite` reads per statement where it binds one parameter per
event (SQLite)."""


def _outbox_insert_with_writes(writes: Sequence[EventWrite]) -> DriverWrite:
    """PostgreSQL: all of a commit's events in one INSERT of three array parameters (one
    statement text for any number of events), in their order (ids ascend with it), and the
    ``writes`` made from them, as one statement: ``WITH written AS (INSERT INTO outbox_events
    ... RETURNING id, event_type, payload), event_write_0 AS (<write> RETURNING 1), ... SELECT
    written.id, (SELECT count(*) FROM event_write_0), ... FROM written``."""
    table: sa.Table = OutboxEvent.__table__  # type: ignore[attr-defined]
    names = ("event_type", "payload", "created_at")
    arrays = (bindparam(name, type_=ARRAY(table.c[name].type)) for name in names)
    values = sa.func.unnest(*arrays).table_valued(*names, with_ordinality="position").render_derived("values")
    rows = sa.select(*(values.c[name] for name in names)).order_by(values.c.position)
    written = (
        sa.insert(table)
        .from_select(names, rows)
        .returning(table.c.id, table.c.event_type, table.c.payload)
        .cte("written")
    )
    counts = []
    for position, write in enumerate(writes):
        # named by position, not by ``write.name``: a CTE hides a table of its name
        made = write.insert(written).returning(sa.literal_column("1")).cte(f"event_write_{position}")
        counts.append(sa.select(sa.func.count()).select_from(made).scalar_subquery())
    return DriverWrite(sa.select(written.c.id, *counts))


def _write_after_outbox(write: EventWrite) -> Insert:
    """Elsewhere: ``write`` from the outbox rows listed in ``event_ids``."""
    table: sa.Table = OutboxEvent.__table__  # type: ignore[attr-defined]
    events = (
        sa.select(table.c.id, table.c.event_type, table.c.payload)
        .where(table.c.id.in_(bindparam("event_ids", expanding=True)))
        .subquery("written")
    )
    return write.insert(events)


@dataclass(frozen=True)
class _Pending:
    """An event published in a transaction, its row not written yet."""

    event_type: str
    payload: dict[str, Any]
    created_at: datetime
    published_in: SessionTransaction  # the innermost transaction then


def _inside(transaction: SessionTransaction | None, outer: SessionTransaction) -> bool:
    """Is ``transaction`` ``outer`` or a savepoint within it?"""
    while transaction is not None:
        if transaction is outer:
            return True
        transaction = transaction.parent
    return False


class UnknownEventType(LookupError):
    """An event type no plugin declared through ``register_events``."""


def _non_finite(value: Any) -> list[Any] | None:
    """The path (keys and indexes) to the first NaN or infinity in a JSON value, else ``None``."""
    if isinstance(value, float):
        return None if math.isfinite(value) else []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _non_finite(item)
        if found is not None:
            return [key, *found]
    return None


class EventBus:
    """The catalogue of event types, the subscribers, and the outbox dispatcher of one app."""

    def __init__(
        self,
        db: Database,
        bus: Bus,
        catalogue: Mapping[str, type[BaseModel]],
        retry: RetryPolicy | None = None,
    ) -> None:
        self.db = db
        self.bus = bus
        self.catalogue = dict(catalogue)
        self.retry = retry or RetryPolicy()
        # the time failures are due by (tests set a controllable one)
        self.clock: Callable[[], datetime] = utcnow
        self.subscribers: dict[str, list[Subscription]] = defaultdict(list)
        self.transaction_subscribers: list[TransactionSubscriber] = []
        self.writes: list[EventWrite] = []
        self._outbox_statement: DriverWrite | None = None  # PostgreSQL's, with the writes
        self._write_statements: dict[str, Insert] = {}  # elsewhere, one per write
        self._wake = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self.poll_seconds = 5.0
        # After a wake-up, wait this long so that the commits of concurrent requests share one
        # dispatch pass (one claim, one mark, one commit) instead of one pass each.
        self.gather_seconds = 0.01
        # The next retry pass: at once after the start, then at the next poll or when the
        # earliest failure is due, if sooner (a failure recorded since moves it earlier).
        self._retry_check_at = datetime.min.replace(tzinfo=UTC)
        self._listeners = db.on_sessions(
            {
                "before_commit": self._before_commit,
                "after_commit": self._after_commit,
                "after_soft_rollback": self._after_rollback,
            }
        )

    def subscribe(self, event_type: str, subscriber: Subscriber, *, name: str | None = None) -> None:
        """Call ``subscriber`` for every dispatched event of ``event_type`` (``*`` = all).

        When it raises, it alone is called again for that event, with backoff (see the
        module), so make it idempotent. Its failures are recorded under ``name`` (default:
        :func:`subscriber_name`), which finds it again after a restart or on another
        instance: keep it stable, and unique among the subscribers an event reaches.
        """
        if event_type != "*" and event_type not in self.catalogue:
            raise UnknownEventType(event_type)
        name = (name or subscriber_name(subscriber))[:SUBSCRIBER_NAME_CHARS]
        reached = self.subscribers.values() if event_type == "*" else self._reaching_groups(event_type)
        if any(known.name == name for group in reached for known in group):
            raise ValueError(
                f"a subscriber named {name!r} already receives {event_type!r}: pass another name="
            )
        self.subscribers[event_type].append(Subscription(name, subscriber))

    def _reaching_groups(self, event_type: str) -> tuple[list[Subscription], list[Subscription]]:
        """The subscriptions an event of ``event_type`` reaches: its type's, then ``*``'s."""
        return self.subscribers.get(event_type, []), self.subscribers.get("*", [])

    def wake(self) -> None:
        """Run a dispatch pass (and a retry pass if one is due) now rather than at the next poll."""
        self._wake.set()

    def subscribe_in_transaction(self, subscriber: TransactionSubscriber) -> None:
        """Call ``subscriber(session, events)`` inside every transaction that published events,
        just before it commits, with those events (written: their ids are set).

        ``session`` is the synchronous :class:`~sqlalchemy.orm.Session` behind the caller's
        ``AsyncSession``; statements run on it (``session.execute(...)``) join the transaction,
        so what the subscriber writes is committed with the change or not at all. An
        exception aborts the commit. Keep it to a statement or two: every publishing request
        pays for it.
        """
        self.transaction_subscribers.append(subscriber)

    def write_with_events(self, write: EventWrite) -> None:
        """Make ``write`` from the events of every commit that publishes some (register at
        startup: the statements are built at the first commit after)."""
        if any(known.name == write.name for known in self.writes):
            raise ValueError(f"an event write named {write.name!r} is registered already")
        self.writes.append(write)
        self._outbox_statement = None

    def publish(self, session: AsyncSession, event_type: str, payload: BaseModel | Mapping[str, Any]) -> None:
        """Add the event to the session's transaction; it is dispatched after the commit.

        The payload is validated against the type's declared model. A number JSON cannot hold
        (NaN, an infinity) is refused here with :class:`ValueError` naming where it is, rather
        than made storable: as text it would break the model's type for every subscriber and
        receiver; kept, it would fail the commit later, the change with it (PostgreSQL's JSON
        has none; SQLite would store a ``NaN``, which is not JSON). Pydantic's JSON dump
        already writes those of untyped fields (``Any``) as ``null``.

        The outbox row is written just before the transaction (or the savepoint it was
        published in) commits, all of its events in one statement; a rolled-back savepoint
        takes its events along.
        """
        model = self.catalogue.get(event_type)
        if model is None:
            raise UnknownEventType(f"event type {event_type!r} is not declared by any plugin")
        validated = payload if isinstance(payload, model) else model.model_validate(payload)
        dumped = validated.model_dump(mode="json")
        path = _non_finite(dumped)
        if path is not None:
            where = ".".join(str(step) for step in path)
            raise ValueError(f"event {event_type!r}: {where} is not a finite number, which JSON cannot hold")
        sync_session = session.sync_session
        info = sync_session.info
        self._listeners.reach(sync_session)
        published_in = (
            sync_session.get_nested_transaction() or sync_session.get_transaction() or sync_session.begin()
        )
        pending = _Pending(event_type, dumped, utcnow(), published_in)
        info.setdefault(_PENDING_KEY, []).append(pending)

    def _before_commit(self, session: Session) -> None:
        pending: list[_Pending] | None = session.info.get(_PENDING_KEY)
        if not pending:
            return
        if self.db.dialect == "postgresql":
            ids = self._write_on_postgresql(session, pending)
        else:
            values = [
                {"event_type": item.event_type, "payload": item.payload, "created_at": item.created_at}
                for item in pending
            ]
            ids = session.execute(_outbox_insert(), values).scalars().all()
            for write in self.writes:
                write.written(session, self._write_after(session, write, ids))
        events = [
            Event(event_id, item.event_type, item.payload, item.created_at)
            for event_id, item in zip(ids, pending, strict=True)
        ]
        for subscriber in self.transaction_subscribers:
            subscriber(session, events)

    def _write_on_postgresql(self, session: Session, pending: Sequence[_Pending]) -> Sequence[int]:
        """The outbox rows and the writes in one statement; the events' ids, in order."""
        if self._outbox_statement is None:
            self._outbox_statement = _outbox_insert_with_writes(self.writes)
        params: dict[str, Any] = {
            "event_type": [item.event_type for item in pending],
            "payload": [item.payload for item in pending],
            "created_at": [item.created_at for item in pending],
        }
        for write in self.writes:
            params.update(write.parameters())
        rows = self._outbox_statement.rows(session, params)
        for position, write in enumerate(self.writes, start=1):
            write.written(session, rows[0][position])
        return sorted(row[0] for row in rows)

    def _write_after(self, session: Session, write: EventWrite, ids: Sequence[int]) -> int:
        """``write`` from the outbox rows of ``ids``, after them; how many rows it wrote."""
        statement = self._write_statements.get(write.name)
        if statement is None:
            statement = self._write_statements[write.name] = _write_after_outbox(write)
        parameters, count = write.parameters(), 0
        for start in range(0, len(ids), EVENTS_PER_STATEMENT):
            chunk = list(ids[start : start + EVENTS_PER_STATEMENT])
            result: Any = session.execute(statement, {**parameters, "event_ids": chunk})
            count += result.rowcount
        return count

    def _after_rollback(self, session: Session, rolled_back: SessionTransaction) -> None:
        """The events published in a rolled-back transaction (or savepoint) never happened."""
        pending: list[_Pending] | None = session.info.get(_PENDING_KEY)
        if pending:
            pending[:] = [item for item in pending if not _inside(item.published_in, rolled_back)]

    def _after_commit(self, session: Session) -> None:
        if session.info.pop(_PENDING_KEY, None):
            self._wake.set()

    async def start(self) -> None:
        self._stopping = False
        self._task = asyncio.create_task(self._run(), name="subsvc-outbox")

    async def stop(self) -> None:
        """Let a dispatch pass under way finish (up to ``STOP_SECONDS``), then stop."""
        if self._task is None:
            return
        self._stopping = True
        self._wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout=STOP_SECONDS)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while not self._stopping:
            try:
                while not self._stopping and await self.dispatch_pending():
                    pass
                if not self._stopping and self.clock() >= self._retry_check_at:
                    self._retry_check_at = self.clock() + timedelta(seconds=self.poll_seconds)
                    while not self._stopping and await self.retry_failed():
                        pass
                    due = await self.next_retry_at()
                    if due is not None:
                        self._retry_check_at = min(self._retry_check_at, due)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not is_database_unavailable(exc):
                    log.exception("outbox dispatch failed")
            if self._stopping:
                return
            until_retry = (self._retry_check_at - self.clock()).total_seconds()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self._wake.wait(), timeout=max(0.0, min(self.poll_seconds, until_retry))
                )
                if not self._stopping:
                    await asyncio.sleep(self.gather_seconds)
            self._wake.clear()

    async def dispatch_pending(self, limit: int = 100) -> int:
        """Dispatch up to ``limit`` undispatched events, oldest first; returns how many.

        The rows are marked dispatched in the pass's transaction, committed after their
        delivery (an interrupted pass leaves them pending) together with a failure row for
        each subscriber that raised. On PostgreSQL they are claimed with ``FOR UPDATE SKIP
        LOCKED``, so several instances share the work without dispatching an event twice.
        """
        claim, mark = _dispatch_statements(self.db.dialect)
        async with self.db.session() as session:
            params = {"limit": limit} if mark is not None else {"limit": limit, "now": utcnow()}
            claimed = await session.exec(claim, params=params)  # type: ignore[arg-type]
            rows = sorted(claimed.all(), key=lambda row: row.id)
            if not rows:
                return 0
            failed: list[_Failed] = []
            for row in rows:
                failed += await self._deliver(Event(row.id, row.event_type, row.payload, row.created_at))
            if mark is not None:
                await session.exec(mark, params={"ids": [row.id for row in rows], "now": utcnow()})
            if failed:
                await self._record_failures(session, failed)
            await session.commit()
        return len(rows)

    async def _deliver(self, item: Event) -> list[_Failed]:
        """Call every subscriber ``item`` reaches and publish it on the bus; the failed calls."""
        failed: list[_Failed] = []
        for group in self._reaching_groups(item.type):
            for subscription in list(group):
                error = await self._call(subscription, item, attempt=1)
                if error is not None:
                    failed.append(_Failed(item.id, subscription.name, error))
        await self.bus.publish(BUS_CHANNEL, item.to_json())
        return failed

    async def _call(self, subscription: Subscription, item: Event, attempt: int) -> str | None:
        """Call one subscriber; ``None`` when it succeeded, else the error's text (logged: as
        a warning while another attempt is left, as an error after the last)."""
        try:
            result = subscription(item)
            if result is not None:
                await result
        except Exception as exc:
            last = self.retry.delay(attempt) is None
            log.log(
                logging.ERROR if last else logging.WARNING,
                "subscriber %s of %s failed for event %s (attempt %d of %d%s)",
                subscription.name,
                item.type,
                item.id,
                attempt,
                self.retry.max_attempts,
                ", given up: recorded in outbox_failures" if last else ", retried later",
                exc_info=True,
            )
            return storable(f"{type(exc).__name__}: {exc}", ERROR_CHARS)
        return None

    async def _record_failures(self, session: AsyncSession, failed: Sequence[_Failed]) -> None:
        """A failure row of each first failed call, in the dispatch pass's transaction."""
        now = self.clock()
        next_attempt_at = self._next_attempt_at(1, now)
        values = [
            {
                "event_id": item.event_id,
                "subscriber": item.subscriber,
                "attempts": 1,
                "next_attempt_at": next_attempt_at,
                "last_error": item.error,
                "failed_at": now,
                "last_attempt_at": now,
            }
            for item in failed
        ]
        await session.exec(_failure_insert(self.db.dialect), params=values)

    def _next_attempt_at(self, attempts: int, now: datetime) -> datetime | None:
        """When to call a subscriber again after its ``attempts``-th failed call (``None``:
        never); the retry pass is brought forward to it."""
        delay = self.retry.delay(attempts)
        if delay is None:
            return None
        self._retry_check_at = min(self._retry_check_at, now + delay)
        return now + delay

    def _subscriber_names(self) -> list[str]:
        """Every subscriber's name, sorted."""
        return sorted({subscription.name for group in self.subscribers.values() for subscription in group})

    def _subscription(self, event_type: str, name: str) -> Subscription | None:
        """The subscriber named ``name`` that events of ``event_type`` reach, if any."""
        reached = (s for group in self._reaching_groups(event_type) for s in group if s.name == name)
        return next(reached, None)

    async def next_retry_at(self) -> datetime | None:
        """When the earliest failure of this process's subscribers is due (``None``: none is)."""
        names = self._subscriber_names()
        if not names:
            return None
        async with self.db.session(read_only=True) as session:
            found = await session.exec(_next_retry_statement(), params={"names": names})  # type: ignore[call-overload]
            due: datetime | None = found.scalar()
        return due

    async def retry_failed(self, limit: int = 100) -> int:
        """Call again up to ``limit`` failed subscribers whose retry is due, each for its event;
        returns how many were called.

        A call that succeeds deletes its failure; one that fails again counts an attempt and
        is due again after the next backoff, or never after the last attempt (the row stays).
        Only the failures of subscribers of this process are claimed; on PostgreSQL with
        ``FOR UPDATE SKIP LOCKED``, held until the pass commits, so two instances never retry
        one failure at once.
        """
        names = self._subscriber_names()
        if not names:
            return 0
        claim, succeeded, failed_again = _retry_statements(self.db.dialect)
        async with self.db.session() as session:
            params = {"now": self.clock(), "names": names, "limit": limit}
            rows = (await session.exec(claim, params=params)).all()  # type: ignore[call-overload]
            if not rows:
                return 0
            done: list[int] = []
            again: list[dict[str, Any]] = []
            for row in rows:
                item = Event(row.event_id, row.event_type, row.payload, row.created_at)
                attempt = row.attempts + 1
                subscription = self._subscription(item.type, row.subscriber)
                if subscription is None:
                    error: str | None = f"{row.subscriber} does not receive {item.type} in this process"
                    log.error("failure %s of event %s: %s", row.id, item.id, error)
                else:
                    error = await self._call(subscription, item, attempt)
                if error is None:
                    done.append(row.id)
                    continue
                now = self.clock()
                again.append(
                    {
                        "failure_id": row.id,
                        "new_attempts": attempt,
                        "new_next_attempt_at": self._next_attempt_at(attempt, now),
                        "new_last_error": error,
                        "new_last_attempt_at": now,
                    }
                )
            if done:
                await session.exec(succeeded, params={"ids": done})
            if again:
                await session.exec(failed_again, params=again)
            await session.commit()
        return len(rows)


async def failure_counts(db: Database) -> dict[str, int]:
    """The recorded subscriber failures: ``retrying`` (another call is due) and ``given_up``."""
    table: sa.Table = OutboxFailure.__table__  # type: ignore[attr-defined]
    async with db.session(read_only=True) as session:
        query = sa.select(sa.func.count(), sa.func.count(table.c.next_attempt_at))
        total, retrying = (await session.exec(query)).one()  # type: ignore[call-overload]
    return {"retrying": int(retrying), "given_up": int(total) - int(retrying)}


PRUNE_BATCH = 5_000


async def prune_outbox(db: Database, retention: timedelta, batch: int = PRUNE_BATCH) -> int:
    """Delete the events dispatched and older than ``retention``, oldest first, a batch per
    transaction; returns how many. Walks the primary key from the oldest row and stops at the
    first younger one (ids grow with time), so it costs no index of its own. Rows still
    waiting for dispatch stay, and so do those with a recorded subscriber failure (retrying or
    given up: the failure keeps its event). Webhook deliveries keep their own copy of a payload."""
    table: sa.Table = OutboxEvent.__table__  # type: ignore[attr-defined]
    failures: sa.Table = OutboxFailure.__table__  # type: ignore[attr-defined]
    failed = sa.exists().where(failures.c.event_id == table.c.id).label("failed")
    before = utcnow() - retention
    after, deleted = 0, 0
    while True:
        async with db.session() as session:
            rows = (
                await session.exec(
                    sa.select(table.c.id, table.c.created_at, table.c.dispatched_at, failed)  # type: ignore[call-overload]
                    .where(table.c.id > after)
                    .order_by(table.c.id)
                    .limit(batch)
                )
            ).all()
            old = list(itertools.takewhile(lambda row: row.created_at < before, rows))
            done = [row.id for row in old if row.dispatched_at is not None and not row.failed]
            if done:
                removal = sa.delete(table).where(in_list(table.c.id, "ids", db.dialect))
                await session.exec(removal, params={"ids": done})
                await session.commit()
                deleted += len(done)
        if len(old) < len(rows) or len(rows) < batch:
            return deleted
        after = rows[-1].id
