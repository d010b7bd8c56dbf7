"""Background jobs on taskiq: an in-memory broker by default, Redis (taskiq-redis) when
``REDIS_URL`` is set.

Plugins declare jobs with the ``register_jobs`` hook (:class:`Job`: a name, an ``async
def run(app, **kwargs)``, optionally ``every`` seconds). ``app.state.jobs.enqueue(name,
**kwargs)`` sends one to the broker; ``enqueue_after_commit(session, ...)`` sends it once the
session's transaction has committed (so the job sees the change that asked for it).

A job is a nudge, never the only record of work: the work itself lives in the database
(e.g. pending webhook deliveries), and periodic jobs (``every``) find what a lost message,
a crash or a restart left behind. The worker runs in ``subsvc serve`` (``JOBS_WORKER``) and
in ``subsvc worker`` processes: with the in-memory broker a job runs in the process that
enqueued it; with Redis any worker process takes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session, SessionTransaction
from taskiq import AsyncBroker, InMemoryBroker
from taskiq.receiver import Receiver

from subsvc.db import is_database_unavailable

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from subsvc.settings import Settings

log = logging.getLogger("subsvc.jobs")
_AFTER_COMMIT_KEY = "subsvc.jobs.after_commit"
STOP_SECONDS = 10.0

JobFunction = Callable[..., Awaitable[None]]


@dataclass(frozen=True)
class Job:
    """A background job a plugin declares.

    ``run(app, **kwargs)`` does the work (keyword arguments must be JSON values). ``every``:
    also run it this often in every worker (seconds, or a function of the app returning
    them, e.g. read from the plugin's settings; ``None`` or 0 = only when enqueued); a
    periodic job also runs once when the worker starts.
    """

    name: str
    run: JobFunction
    every: float | Callable[[Starlette], float | None] | None = None


class UnknownJob(LookupError):
    """A job name no plugin declared through ``register_jobs``."""


def create_broker(settings: Settings) -> AsyncBroker:
    """taskiq's in-memory broker, or a Redis list queue when ``REDIS_URL`` is set."""
    if settings.REDIS_URL:
        return _redis_queue_broker(settings.REDIS_URL, settings.JOBS_QUEUE)
    return InMemoryBroker(cast_types=False, max_stored_results=1)


QUEUE_WAIT_SECONDS = 2
"""How long one BRPOP of the Redis queue waits for a job before Redis answers "none"."""
QUEUE_READ_GRACE_SECONDS = 30
"""How much longer than that the listening connection waits for Redis's answer before it
counts the connection as lost (a CPU-starved process can be seconds late reading it)."""


def _cancel_requested() -> bool:
    """Is the current task asked to stop? redis-py (8.1) can let a cancellation that comes
    during a blocking read pass: the read goes on, and returns as if none had come."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _redis_queue_broker(url: str, queue: str) -> AsyncBroker:
    from redis.asyncio import ConnectionPool, Redis
    from taskiq_redis import ListQueueBroker

    class QueueBroker(ListQueueBroker):
        """taskiq-redis's list queue, listening on a connection of its own.

        Its BRPOPs wait :data:`QUEUE_WAIT_SECONDS`, and the connection's read timeout is that
        plus :data:`QUEUE_READ_GRACE_SECONDS`, whatever ``socket_timeout`` the URL gives the
        other connections (redis-py's default: 5 s). An endless BRPOP outlived the read
        timeout whenever no job came for that long, and a BRPOP just short of it was outlived
        when the process was busy; either timeout stopped the receiver, cancelling its jobs.
        """

        def __init__(self, url: str, queue_name: str) -> None:
            super().__init__(url, queue_name=queue_name)
            pool = self.connection_pool
            read_timeout = QUEUE_WAIT_SECONDS + QUEUE_READ_GRACE_SECONDS
            self.listening_pool = ConnectionPool(
                connection_class=pool.connection_class,
                max_connections=1,
                **{**pool.connection_kwargs, "socket_timeout": read_timeout},
            )

        async def listen(self) -> AsyncGenerator[bytes, None]:
            async with Redis(connection_pool=self.listening_pool) as redis:
                while True:
                    popped = await redis.brpop([self.queue_name], timeout=QUEUE_WAIT_SECONDS)
                    if popped is not None:
                        yield popped[1]  # type: ignore[misc] # bytes: the pool does not decode
                    elif _cancel_requested():
                        raise asyncio.CancelledError  # one redis-py's blocking read let pass

        async def shutdown(self) -> None:
            await super().shutdown()
            await self.listening_pool.disconnect()

    return QueueBroker(url, queue)


class Jobs:
    """The jobs of one app: its broker, the declared jobs, and (when started as a worker) the
    receiver and the periodic loops."""

    def __init__(self, app: Starlette, jobs: Sequence[Job], settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.broker = create_broker(settings)
        self.declared: dict[str, Job] = {}
        for job in jobs:
            if job.name in self.declared:
                raise ValueError(f"job {job.name!r} is declared twice")
            self.declared[job.name] = job
            self.broker.register_task(self._task(job), task_name=job.name)
        self._listeners = app.state.db.on_sessions(
            {"after_commit": self._after_commit, "after_soft_rollback": self._after_rollback}
        )
        self.is_worker = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._running: set[asyncio.Task[Any]] = set()
        self._loops: list[asyncio.Task[None]] = []
        self._finish = asyncio.Event()
        self._started = False

    def _task(self, job: Job) -> Callable[..., Coroutine[Any, Any, None]]:
        async def task(**kwargs: Any) -> None:
            await self._run(job, kwargs)

        task.__name__ = job.name.replace(".", "_")
        return task

    @property
    def stopping(self) -> bool:
        """True once the app is stopping: long jobs should finish what they hold and return."""
        return self._finish.is_set()

    async def _run(self, job: Job, kwargs: Mapping[str, Any]) -> None:
        current = asyncio.current_task()
        if current is not None:
            self._running.add(current)
        try:
            await job.run(self.app, **kwargs)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if is_database_unavailable(exc):
                log.warning("job %s: database unavailable; it will be retried", job.name)
            else:
                log.exception("job %s failed", job.name)
        finally:
            if current is not None:
                self._running.discard(current)

    async def enqueue(self, name: str, **kwargs: Any) -> None:
        """Send job ``name`` to the broker (in-memory: it starts in this process at once)."""
        task = self.broker.find_task(name)
        if task is None:
            raise UnknownJob(f"job {name!r} is not declared by any plugin")
        try:
            await task.kiq(**kwargs)
        except Exception:
            # Jobs are nudges: the work is in the database and a periodic job will find it.
            log.warning("could not enqueue job %s", name, exc_info=True)

    def enqueue_after_commit(self, session: AsyncSession | Session, name: str, **kwargs: Any) -> None:
        """Enqueue job ``name`` once ``session`` commits (nothing if it rolls back). The same
        job with the same arguments asked for several times in one transaction runs once."""
        if name not in self.declared:
            raise UnknownJob(f"job {name!r} is not declared by any plugin")
        sync_session = session.sync_session if isinstance(session, AsyncSession) else session
        self._listeners.reach(sync_session)
        pending: dict[tuple[str, str], dict[str, Any]] = sync_session.info.setdefault(_AFTER_COMMIT_KEY, {})
        pending[(name, json.dumps(kwargs, sort_keys=True, default=str))] = kwargs

    def _after_commit(self, session: Session) -> None:
        if session.get_nested_transaction() is not None:  # a SAVEPOINT released: not the commit
            return
        pending = session.info.pop(_AFTER_COMMIT_KEY, None) or {}
        for (name, _), kwargs in pending.items():
            self.spawn(self.enqueue(name, **kwargs))

    def _after_rollback(self, session: Session, previous_transaction: SessionTransaction) -> None:
        if not previous_transaction.nested:  # a savepoint's rollback leaves the transaction
            session.info.pop(_AFTER_COMMIT_KEY, None)

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run a coroutine in the background, keeping a reference until it is done."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def start(self, *, worker: bool) -> None:
        """Start the broker; with ``worker``, also take jobs and run the periodic ones here."""
        self.is_worker = worker
        self.broker.is_worker_process = worker
        await self.broker.startup()
        self._started = True
        if not worker:
            return
        if not isinstance(self.broker, InMemoryBroker):
            receiver = Receiver(
                self.broker,
                validate_params=False,
                max_async_tasks=self.settings.JOBS_CONCURRENCY,
                run_startup=False,
            )
            self._loops.append(asyncio.create_task(self._receive(receiver), name="subsvc-jobs-receiver"))
        for job in self.declared.values():
            if job.every is not None:
                self._loops.append(asyncio.create_task(self._every(job), name=f"subsvc-job-{job.name}"))

    async def _receive(self, receiver: Receiver) -> None:
        while not self._finish.is_set():
            try:
                await receiver.listen(self._finish)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("job receiver stopped; restarting", exc_info=True)
                await asyncio.sleep(1)

    def _interval(self, job: Job) -> float | None:
        every = job.every(self.app) if callable(job.every) else job.every
        return every or None

    async def _every(self, job: Job) -> None:
        while not self._finish.is_set():
            interval = self._interval(job)
            if interval is None:
                return
            await self._run(job, {})
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._finish.wait(), timeout=interval)

    async def stop(self) -> None:
        """Stop taking jobs; let running ones finish (up to ``STOP_SECONDS``), then cancel."""
        if not self._started:
            return
        self._finish.set()
        running = {*self._loops, *self._tasks, *self._running}
        if running:
            _, late = await asyncio.wait(running, timeout=STOP_SECONDS)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late, timeout=1)
        with contextlib.suppress(Exception):
            await self.broker.shutdown()
        self._started = False
