"""When the statistics must be computed again, and computing them off the request path.

**Changes.** A transaction of this instance that wrote ``users``, ``subscriptions`` or
``transactions`` (any statement SQLAlchemy runs: the ORM's flushes, Core statements, text;
not a :class:`~subsvc.db.DriverWrite` sent straight to the driver) counts as a change once it
has committed: :class:`Changes` sees the statement on the engine, ties it to the session it
ran in, and at the session's commit moves its ``generation`` on and tells the other
instances through the bus (channel ``stats.changed``; a burst of commits makes one message
per ``ANNOUNCE_SECONDS``). A message from another instance moves ``remote`` on.

**Figures.** :class:`Figures` keeps the last computed value. A request that comes after a
local commit waits for a computation started after that commit (one at a time, shared by
every request waiting); otherwise it is answered with the last value at once, and when
that is older than ``seconds`` or another instance changed something meanwhile, one
computation starts in the background. So no request waits for an expired value, and this
instance's own changes show at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from sqlalchemy import event
from sqlalchemy.orm import Session

from subsvc.bus import Bus
from subsvc.db import Database

T = TypeVar("T")
log = logging.getLogger("subsvc.stats")
CHANNEL = "stats.changed"
WATCHED = ("users", "subscriptions", "transactions")
_WRITES = re.compile(
    r"\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+\"?(?:" + "|".join(WATCHED) + r")\"?(?:\s|\(|$)",
    re.IGNORECASE,
)
_SESSION_KEY = "subsvc_stats.session"  # on a connection: the info of the session it serves
_TOUCHED_KEY = "subsvc_stats.touched"  # on a session: it wrote a watched table
_KNOWN_LIMIT = 4096
ANNOUNCE_SECONDS = 0.05


class Changes:
    """Committed changes to the tables the statistics read: this instance's (``generation``)
    and the other instances' (``remote``)."""

    def __init__(self, db: Database, bus: Bus) -> None:
        self.bus = bus
        self.instance = uuid.uuid4().hex
        self.generation = 0
        self.remote = 0
        self._known: dict[str, bool] = {}
        self._announcing: asyncio.Task[None] | None = None
        self._again = False
        engine = db.engine.sync_engine
        event.listen(engine, "before_cursor_execute", self._before_statement)
        event.listen(engine, "commit", self._transaction_ended)
        event.listen(engine, "rollback", self._transaction_ended)
        self._sessions = db.on_sessions(
            {
                "after_begin": self._after_begin,
                "after_commit": self._after_commit,
                "after_soft_rollback": self._after_rollback,
            }
        )
        bus.subscribe(CHANNEL, self._on_message)

    def writes(self, statement: str) -> bool:
        """Whether ``statement`` writes a watched table (remembered per statement text)."""
        known = self._known.get(statement)
        if known is None:
            if len(self._known) >= _KNOWN_LIMIT:
                self._known.clear()
            known = self._known[statement] = _WRITES.search(statement) is not None
        return known

    def _before_statement(self, conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if self.writes(statement):
            session_info = conn.info.get(_SESSION_KEY)
            if session_info is not None:
                session_info[_TOUCHED_KEY] = True
            else:  # a connection used outside a session: counted as it commits, at once
                self.changed()

    @staticmethod
    def _transaction_ended(conn: Any) -> None:
        if not conn.invalidated:
            conn.info.pop(_SESSION_KEY, None)  # the connection no longer serves that session

    @staticmethod
    def _after_begin(session: Session, _transaction: Any, connection: Any) -> None:
        connection.info[_SESSION_KEY] = session.info

    def _after_commit(self, session: Session) -> None:
        if session.info.pop(_TOUCHED_KEY, False):
            self.changed()

    @staticmethod
    def _after_rollback(session: Session, previous_transaction: Any) -> None:
        if previous_transaction.parent is None:
            session.info.pop(_TOUCHED_KEY, None)

    def changed(self) -> None:
        """This instance committed a change: forget, and tell the other instances."""
        self.generation += 1
        if type(self.bus) is Bus:  # in-process: no other instance to tell
            return
        if self._announcing is not None:
            self._again = True  # the announcing task sends one more message for it
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a synchronous caller): nothing to announce with
            return
        self._announcing = loop.create_task(self._announce(), name="subsvc-stats-announce")

    async def _announce(self) -> None:
        """One message now, then at most one per ``ANNOUNCE_SECONDS`` while changes go on
        (a burst of commits costs the bus one message, not one each)."""
        try:
            while True:
                self._again = False
                try:
                    await self.bus.publish(CHANNEL, self.instance)
                except Exception:
                    log.warning("could not announce a change of the statistics' tables", exc_info=True)
                await asyncio.sleep(ANNOUNCE_SECONDS)
                if not self._again:
                    return
        finally:
            self._announcing = None

    def _on_message(self, message: str) -> None:
        if message != self.instance:
            self.remote += 1

    async def stop(self) -> None:
        if self._announcing is not None:
            with contextlib.suppress(Exception):
                await self._announcing


class Figures(Generic[T]):
    """A value computed by ``compute``: kept for ``seconds`` (0: computed for every request),
    recomputed in the background when older, computed anew before answering after a local
    change (:class:`Changes`)."""

    def __init__(self, compute: Callable[[], Awaitable[T]], seconds: float, changes: Changes) -> None:
        self.compute = compute
        self.seconds = seconds
        self.changes = changes
        self.value: T | None = None
        self.expires = 0.0
        self._generation = -1  # of the value: the local generation when its computation began
        self._remote = 0  # the other instances' changes known when the value's computation began
        self._epoch = 0  # moved on by clear(): computations begun before are not kept
        self._task: asyncio.Task[T] | None = None
        self._task_generation = -1

    async def get(self) -> T:
        if self.seconds <= 0:
            return await self.compute()
        generation = self.changes.generation
        value = self.value
        if value is not None and self._generation >= generation:
            if time.monotonic() >= self.expires or self._remote != self.changes.remote:
                self._start()  # the last figures meanwhile
            return value
        return await self._fresh(generation)

    def clear(self) -> None:
        """Forget the value: the next request waits for a new one."""
        self._epoch += 1
        self.value = None
        self.expires = 0.0

    async def settled(self) -> None:
        """Wait for the computation running now, if any (its failure is not raised)."""
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._task)

    async def stop(self) -> None:
        task = self._task
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def _fresh(self, generation: int) -> T:
        """A value whose computation began at ``generation`` or later."""
        while True:
            task = self._task or self._start()
            began = self._task_generation
            try:
                value = await asyncio.shield(task)
            except Exception:
                if began >= generation:
                    raise
                continue  # an older computation failed: one of ours next
            if began >= generation:
                return value

    def _start(self) -> asyncio.Task[T]:
        """The computation running now, or a new one."""
        if self._task is None:
            self._task_generation = self.changes.generation
            self._task = asyncio.get_running_loop().create_task(
                self._run(self.changes.generation, self.changes.remote, self._epoch),
                name="subsvc-stats-compute",
            )
            self._task.add_done_callback(_log_failure)
        return self._task

    async def _run(self, generation: int, remote: int, epoch: int) -> T:
        try:
            value = await self.compute()
            if epoch == self._epoch and generation >= self._generation:
                self.value, self._generation, self._remote = value, generation, remote
                self.expires = time.monotonic() + self.seconds
            return value
        finally:
            self._task = None


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and (error := task.exception()) is not None:
        log.warning("computing statistics failed: %r", error)
