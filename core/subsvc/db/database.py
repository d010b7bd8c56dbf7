"""The async engine of one app: sessions, reachability, pool figures."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event, exc, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import Session
from sqlalchemy.pool import StaticPool
from sqlalchemy.util import await_only
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.orm.session import Session as SQLModelSession

from subsvc.settings import Settings


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
    through asyncpg. No ping before each use (a round trip per request): a connection that
    fails with a disconnect invalidates the pool, so an outage costs the requests made during
    it and connections are replaced when the server is back."""
    url = make_url(settings.DATABASE_URL)
    if url.get_backend_name() == "sqlite":
        memory = url.database in (None, "", ":memory:")
        pooling: dict[str, Any] = (
            {"poolclass": StaticPool}  # one shared connection: the only way to share a memory database
            if memory
            else {
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
        """Figures of the connection pool (sizes are null where the pool has none)."""
        pool = self.engine.pool
        figures: dict[str, Any] = {"pool_class": type(pool).__name__}
        for name in ("size", "checkedin", "checkedout", "overflow"):
            method = getattr(pool, name, None)
            figures[name] = method() if callable(method) else None
        return figures

    async def dispose(self) -> None:
        await self.engine.dispose()
