"""The async engine of one app: sessions, reachability, pool figures."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event, exc, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import Session
from sqlalchemy.pool import AsyncAdaptedQueuePool, ConnectionPoolEntry, StaticPool
from sqlalchemy.util import await_only
from sqlalchemy.util.queue import Empty
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.orm.session import Session as SQLModelSession

from subsvc.settings import Settings

log = logging.getLogger(__name__)


def is_database_unavailable(error: BaseException) -> bool:
    """True for errors that mean "cannot reach the database" (answered 503), not a bug."""
    if isinstance(error, exc.DBAPIError) and error.connection_invalidated:
        return True
    if isinstance(error, exc.OperationalError | exc.InterfaceError | exc.TimeoutError):
        return True
    if isinstance(error, exc.DBAPIError) and isinstance(error.orig, OSError):
        return True
    if isinstance(error, OSError | asyncio.TimeoutError):
        return True
    # an explicit cause, else the exception being handled, unless ``raise ... from None`` hid it
    cause = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
    module = type(error).__module__
    if module.startswith("asyncpg") and "Connection" in type(error).__name__:
        return True
    return cause is not None and cause is not error and is_database_unavailable(cause)


# SQLSTATE too_many_connections: the server's max_connections ("sorry, too many clients
# already"), the slots reserved for superusers, or a role's or a database's CONNECTION LIMIT.
TOO_MANY_CONNECTIONS = "53300"


def is_connection_refused(error: BaseException | None) -> bool:
    """True when PostgreSQL refused a new connection for want of a free slot (SQLSTATE
    53300): a transient condition, as a slot frees when another client disconnects."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if TOO_MANY_CONNECTIONS in (getattr(error, "sqlstate", None), getattr(error, "pgcode", None)):
            return True
        error = getattr(error, "orig", None) or error.__cause__ or error.__context__
    return False


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no event loop running
        return None


class QueueingPool(AsyncAdaptedQueuePool):
    """The engine's pool: a checkout waits its turn for one of ``pool_size`` connections
    (plus ``max_overflow``, 0 by default) instead of opening more than the server may have free.

    Within one deadline (the pool's ``timeout``: ``DATABASE_TIMEOUT``) a checkout

    - takes an idle connection, or opens one while the pool is below its size;
    - else waits in line: a connection given back goes to the longest waiting checkout
      (SQLAlchemy's queue let a newcomer take it first, and a waiter it overtook went to the
      back of the line, so under load some waited until the timeout);
    - when PostgreSQL refuses to open one for want of slots (SQLSTATE 53300: the other
      instances hold them), gives its place back and tries again shortly, taking a
      connection given back meanwhile, so that a full server costs waiting, not a 503;
    - when its task already holds a connection of this pool (a session opened inside
      another), opens one above the size rather than wait in line: if every holder waited
      for a second connection, none would be given back (at most ``pool_size`` such extras,
      each closed when given back).

    Only at the deadline does it fail (``sqlalchemy.exc.TimeoutError``, answered 503).
    :meth:`figures` has the counters since start.
    """

    RETRY_FIRST_SECONDS = 0.02
    RETRY_MAX_SECONDS = 0.25
    WARN_EVERY_SECONDS = 60.0

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._holders: dict[ConnectionPoolEntry, asyncio.Task[Any] | None] = {}
        self._deadlines: dict[asyncio.Task[Any] | None, float] = {}
        # checkouts in line, first come first served; a result of None hands over a place
        self._line: deque[asyncio.Future[ConnectionPoolEntry | None]] = deque()
        self._warned_at = -self.WARN_EVERY_SECONDS
        self.waits = 0  # checkouts that had to wait in line
        self.timeouts = 0  # checkouts that gave up at the deadline
        self.refused = 0  # connections the server refused (tried again)
        self.nested = 0  # connections opened above the size for a task holding one

    def connect(self) -> Any:
        """A connection within ``timeout``; a refusal of the server is tried again."""
        task = _current_task()
        deadline = time.monotonic() + self._timeout
        self._deadlines[task] = deadline
        delay = self.RETRY_FIRST_SECONDS
        try:
            while True:
                try:
                    return super().connect()
                except Exception as error:
                    if not is_connection_refused(error):
                        raise
                    self._note_refusal(error)
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        self.timeouts += 1
                        raise exc.TimeoutError(
                            f"no database connection within {self._timeout:g} s: the server "
                            f"refused new ones ({error})"
                        ) from error
                    await_only(asyncio.sleep(min(remaining, delay * random.uniform(0.5, 1.0))))  # noqa: S311
                    delay = min(delay * 2, self.RETRY_MAX_SECONDS)
        finally:
            self._deadlines.pop(task, None)

    def _note_refusal(self, error: BaseException) -> None:
        self.refused += 1
        now = time.monotonic()
        if now - self._warned_at >= self.WARN_EVERY_SECONDS:
            self._warned_at = now
            log.warning(
                "the database refused a new connection (%s); waiting for one. The pools of every "
                "process of every instance should fit in the server's max_connections "
                "(README: Sizing the pool)",
                str(error).strip(),
            )

    def _do_get(self) -> ConnectionPoolEntry:
        task = _current_task()
        deadline = self._deadlines.get(task) or time.monotonic() + self._timeout
        nested = task is not None and any(holder is task for holder in self._holders.values())
        record = self._take(deadline, nested)
        self._holders[record] = task
        return record

    def _take(self, deadline: float, nested: bool) -> ConnectionPoolEntry:
        waited = False
        while True:
            try:
                return self._pool.get(False)
            except Empty:
                pass
            if self._inc_overflow() or (nested and self._inc_nested()):
                try:
                    return self._create_connection()
                except BaseException as error:
                    self._dec_overflow()
                    if not is_connection_refused(error):  # the refused checkout tries again itself
                        self._hand_over(None)
                    raise
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.timeouts += 1
                raise exc.TimeoutError(
                    f"no database connection within {self._timeout:g} s: all {self.size()} of "
                    "the pool (DATABASE_POOL_SIZE) were in use"
                )
            if not waited:
                waited = True
                self.waits += 1
            record = await_only(self._wait_in_line(remaining))
            if record is not None:
                return record

    async def _wait_in_line(self, seconds: float) -> ConnectionPoolEntry | None:
        """A connection handed over, or None: a place is free (or the time is up)."""
        turn: asyncio.Future[ConnectionPoolEntry | None] = asyncio.get_running_loop().create_future()
        self._line.append(turn)
        try:
            async with asyncio.timeout(seconds):
                return await turn
        except TimeoutError:
            if turn.done() and not turn.cancelled():
                return turn.result()  # handed over just as the time ran out
            return None
        except BaseException:
            if turn.done() and not turn.cancelled():  # handed over while cancelled: pass it on
                self._hand_over(turn.result())
            raise
        finally:
            turn.cancel()

    def _hand_over(self, record: ConnectionPoolEntry | None) -> bool:
        """Give ``record`` (None: a free place) to the longest waiting checkout, if any."""
        while self._line:
            turn = self._line.popleft()
            if not turn.done():  # one that gave up is skipped
                turn.set_result(record)
                return True
        if record is not None:
            super()._do_return_conn(record)
        return False

    def _inc_nested(self) -> bool:
        with self._overflow_lock:
            if self._overflow >= self._max_overflow + self.size():
                return False
            self._overflow += 1
            self.nested += 1
            return True

    def _do_return_conn(self, record: ConnectionPoolEntry) -> None:
        self._holders.pop(record, None)
        if self._overflow > self._max_overflow:  # above the pool for a nested session: close one
            try:
                record.close()
            finally:
                self._dec_overflow()
            return
        self._hand_over(record)

    def figures(self) -> dict[str, Any]:
        """Settings, current use and counters since start (``GET /metrics/pool``)."""
        return {
            "size": self.size(),
            "max_overflow": self._max_overflow,
            "timeout_seconds": self._timeout,
            "checkedin": self.checkedin(),
            "checkedout": self.checkedout(),
            "overflow": self.overflow(),
            "waiting": sum(not turn.done() for turn in self._line),
            "waits": self.waits,
            "timeouts": self.timeouts,
            "refused": self.refused,
            "nested": self.nested,
        }


def _unicode_lower(value: object) -> object:
    return value.lower() if isinstance(value, str) else value


class WriteGate:
    """SQLite's writers, one connection at a time in arrival order.

    SQLite lets one connection write at a time; the others poll (``busy_timeout``) with
    growing sleeps, so under load a newcomer often takes the lock before a writer that has
    waited for seconds, and some wait until the timeout (503). The gate makes a connection
    queue (first come first served) just before its first writing statement and lets the
    next one in when its transaction ends: the span SQLite holds its write lock.

    The turn is handed over, not taken: when a transaction ends, the next waiting
    connection becomes the holder at once. A waiter that gives up (timeout, cancellation)
    after being handed the turn passes it on, so no turn is ever lost.
    """

    _READS = ("SELECT", "PRAGMA", "RELEASE", "ROLLBACK")

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._holder: object | None = None
        self._waiting: deque[tuple[object, asyncio.Future[None]]] = deque()

    @property
    def holder(self) -> object | None:
        """The connection whose turn it is (``None``: nobody's)."""
        return self._holder

    async def _enter(self, holder: object) -> None:
        if self._holder is None:
            self._holder = holder
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((holder, turn))
        try:
            async with asyncio.timeout(self.timeout):
                await turn
        except BaseException as error:
            if turn.done() and not turn.cancelled():  # handed the turn while giving up
                self.transaction_ended(holder)
            turn.cancel()
            if isinstance(error, TimeoutError):
                raise exc.TimeoutError(
                    f"no turn to write to the database within {self.timeout:g} s"
                ) from None
            raise

    def before_statement(self, holder: object, statement: str) -> None:
        """Wait for this connection's turn if ``statement`` writes (called in SQLAlchemy's
        greenlet, so it can await)."""
        if self._holder is not holder and not statement.lstrip()[:8].upper().startswith(self._READS):
            await_only(self._enter(holder))

    def transaction_ended(self, holder: object | None) -> None:
        """``holder``'s transaction is over: the turn goes to the next connection waiting.
        (``None`` — what the pool reports for a connection it has already discarded — and
        connections that do not hold the turn change nothing.)"""
        if holder is None or self._holder is not holder:
            return
        self._holder = None
        while self._waiting:
            waiter, turn = self._waiting.popleft()
            if not turn.done():  # a waiter that gave up is skipped
                self._holder = waiter
                turn.set_result(None)
                return

    def install(self, engine: AsyncEngine) -> None:
        """Listen to ``engine``'s statements and transaction ends (keyed by DBAPI connection)."""

        def before(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
            self.before_statement(conn.connection.dbapi_connection, statement)

        def ended(conn: Any) -> None:
            if not conn.invalidated:  # an invalidated one was let go by the pool's event
                self.transaction_ended(conn.connection.dbapi_connection)

        def released(dbapi_connection: Any, *_: Any) -> None:
            self.transaction_ended(dbapi_connection)

        event.listen(engine.sync_engine, "before_cursor_execute", before)
        event.listen(engine.sync_engine, "commit", ended)
        event.listen(engine.sync_engine, "rollback", ended)
        for name in ("reset", "checkin", "invalidate", "close"):
            event.listen(engine.sync_engine.pool, name, released)


def create_engine(settings: Settings) -> AsyncEngine:
    """A pooled engine: SQLite with WAL and foreign keys on every connection; PostgreSQL
    through asyncpg. Requests queue for the pool's connections (:class:`QueueingPool`). No
    ping before each use (a round trip per request): a connection that fails with a
    disconnect invalidates the pool, so an outage costs the requests made during it and
    connections are replaced when the server is back."""
    url = make_url(settings.DATABASE_URL)
    if url.get_backend_name() == "sqlite":
        memory = url.database in (None, "", ":memory:")
        pooling: dict[str, Any] = (
            {"poolclass": StaticPool}  # one shared connection: the only way to share a memory database
            if memory
            else {
                "poolclass": QueueingPool,
                "pool_size": settings.DATABASE_POOL_SIZE,
                "max_overflow": settings.DATABASE_MAX_OVERFLOW,
                "pool_timeout": settings.DATABASE_TIMEOUT,
            }
        )
        engine = create_async_engine(url, connect_args={"timeout": settings.DATABASE_TIMEOUT}, **pooling)

        @event.listens_for(engine.sync_engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            if not memory:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute(f"PRAGMA busy_timeout={int(settings.DATABASE_TIMEOUT * 1000)}")
            cursor.close()
            # SQLite's own lower() folds ASCII only; ILIKE compiles to lower(x) LIKE lower(y),
            # so Cyrillic searches need Python's Unicode-aware lower().
            dbapi_connection.create_function("lower", 1, _unicode_lower, deterministic=True)

        @event.listens_for(engine.sync_engine, "savepoint")
        def _begin_before_savepoint(conn: Any, _name: str) -> None:
            # The driver opens a transaction only before a data change; a SAVEPOINT outside
            # one opens its own, which its RELEASE commits: the enclosing transaction's
            # rollback could no longer undo it.
            if not conn.connection.driver_connection.in_transaction:
                conn.exec_driver_sql("BEGIN")

        if not memory:
            WriteGate(settings.DATABASE_TIMEOUT).install(engine)
        return engine
    server_settings = {}
    if settings.DATABASE_RANDOM_PAGE_COST is not None:
        server_settings["random_page_cost"] = str(settings.DATABASE_RANDOM_PAGE_COST)
    return create_async_engine(
        url,
        poolclass=QueueingPool,
        pool_size=settings.DATABASE_POOL_SIZE,
        max_overflow=settings.DATABASE_MAX_OVERFLOW,
        pool_timeout=settings.DATABASE_TIMEOUT,
        pool_recycle=1800,
        connect_args={
            "timeout": settings.DATABASE_TIMEOUT,
            "command_timeout": 60,
            "statement_cache_size": settings.DATABASE_STATEMENT_CACHE_SIZE,
            "server_settings": server_settings,
        },
    )


class SessionListeners:
    """Listeners registered for the sessions of one database (:meth:`Database.on_sessions`)."""

    def __init__(self, session_class: type[Session], listeners: dict[str, Callable[..., Any]]) -> None:
        self.session_class = session_class
        self.listeners = listeners
        self._key = f"subsvc.db.listening.{id(self)}"

    def reach(self, session: Session) -> None:
        """Make sure the listeners hear ``session``: those of the database do already; another
        session (a test's, another engine's) gets them registered for its life."""
        if isinstance(session, self.session_class) or self._key in session.info:
            return
        session.info[self._key] = True
        for name, listener in self.listeners.items():
            event.listen(session, name, listener)


class Database:
    """One engine and its session factories; ``session()`` is the unit of work of a request.

    Read-only sessions (``session(read_only=True)``, used for GET requests) run on
    autocommit connections: each statement is one round trip, with no BEGIN and COMMIT
    around it. Write sessions are ordinary transactions.
    """

    def __init__(self, settings: Settings) -> None:
        self.url = settings.DATABASE_URL
        self.engine = create_engine(settings)
        # A class of its own, so that listeners registered on it (``on_sessions``) hear the
        # sessions of this database only, without being registered per session.
        self.session_class: type[Session] = type("DatabaseSession", (SQLModelSession,), {})
        self.sessions = async_sessionmaker(
            self.engine, expire_on_commit=False, class_=AsyncSession, sync_session_class=self.session_class
        )
        # SQLite's driver opens no transaction for a SELECT anyway, and switching isolation
        # levels would cost it extra thread hops: only PostgreSQL gets autocommit reads.
        self.read_sessions = (
            async_sessionmaker(
                self.engine.execution_options(isolation_level="AUTOCOMMIT"),
                expire_on_commit=False,
                class_=AsyncSession,
                sync_session_class=self.session_class,
            )
            if self.engine.dialect.name == "postgresql"
            else self.sessions
        )

    def on_sessions(self, listeners: Mapping[str, Callable[..., Any]]) -> SessionListeners:
        """Register session event listeners (``{"after_commit": fn, ...}``) for every session
        of this database; the result extends them to a session made elsewhere."""
        for name, listener in listeners.items():
            event.listen(self.session_class, name, listener)
        return SessionListeners(self.session_class, dict(listeners))

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @asynccontextmanager
    async def session(self, *, read_only: bool = False) -> AsyncIterator[AsyncSession]:
        """A session that is rolled back (whatever was not committed) and closed at the end."""
        async with (self.read_sessions if read_only else self.sessions)() as session:
            try:
                yield session
            except BaseException:
                await session.rollback()
                raise

    async def ping(self) -> float:
        """Round-trip ``SELECT 1``; returns milliseconds. Raises when unreachable."""
        started = time.perf_counter()
        async with self.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
        return (time.perf_counter() - started) * 1000

    def pool_status(self) -> dict[str, Any]:
        """Figures of the connection pool (sizes are null where the pool has none): its size,
        connections idle and in use, checkouts waiting now, and since start the checkouts that
        waited, that timed out (503), the connections the server refused and those opened above
        the size for a session inside another (:class:`QueueingPool`)."""
        pool = self.engine.pool
        figures: dict[str, Any] = {"pool_class": type(pool).__name__}
        if isinstance(pool, QueueingPool):
            return {**figures, **pool.figures()}
        for name in ("size", "checkedin", "checkedout", "overflow"):
            method = getattr(pool, name, None)
            figures[name] = method() if callable(method) else None
        return figures

    async def dispose(self) -> None:
        await self.engine.dispose()
