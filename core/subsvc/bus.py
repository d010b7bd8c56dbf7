"""A small message bus between app instances: in-process by default, Redis pub/sub when
``REDIS_URL`` is set. Used for cache invalidation (and, later, WebSocket fan-out)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable

from sqlalchemy.orm import Session
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import once_after_commit

Listener = Callable[[str], Awaitable[None] | None]
log = logging.getLogger("subsvc.bus")
STOP_SECONDS = 5.0


class Bus:
    """In-process bus: ``publish`` calls this process's listeners of the channel."""

    def __init__(self) -> None:
        self.listeners: dict[str, list[Listener]] = defaultdict(list)

    def subscribe(self, channel: str, listener: Listener) -> None:
        self.listeners[channel].append(listener)

    async def publish(self, channel: str, message: str) -> None:
        await self.deliver(channel, message)

    async def deliver(self, channel: str, message: str) -> None:
        for listener in list(self.listeners.get(channel, ())):
            try:
                result = listener(message)
                if result is not None:
                    await result
            except Exception:
                log.exception("bus listener of %s failed", channel)

    async def start(self) -> None:
        """Begin receiving (nothing to do in-process)."""

    async def stop(self) -> None:
        """Stop receiving and release connections."""


class RedisBus(Bus):
    """Redis pub/sub: a message published by any instance reaches every instance's listeners.

    Channels are prefixed with ``subsvc:<database number>:``: pub/sub ignores database
    numbers, and deployments kept apart by database number stay apart on the bus too.
    ``publish`` queues the message and returns: a sender task sends everything queued
    meanwhile in one pipeline, in order, so a burst of messages (the outbox dispatcher's
    events) costs one round trip, not one each. When Redis is down, sending logs and moves
    on (listeners of this process still get the messages); the listener reconnects.
    """

    def __init__(self, url: str) -> None:
        super().__init__()
        import redis.asyncio as redis

        self.redis = redis.Redis.from_url(url, decode_responses=True)
        self.prefix = f"subsvc:{self.redis.connection_pool.connection_kwargs.get('db', 0)}:"
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._outgoing: list[tuple[str, str]] = []
        self._sender: asyncio.Task[None] | None = None

    async def publish(self, channel: str, message: str) -> None:
        self._outgoing.append((channel, message))
        if self._sender is None:
            self._sender = asyncio.get_running_loop().create_task(self._send(), name="subsvc-redis-bus-send")

    async def _send(self) -> None:
        """Send the queued messages, a pipeline per batch, until none is left."""
        try:
            while self._outgoing:
                batch, self._outgoing = self._outgoing, []
                try:
                    async with self.redis.pipeline(transaction=False) as pipeline:
                        for channel, message in batch:
                            pipeline.publish(self.prefix + channel, message)
                        await pipeline.execute()
                except Exception:
                    failed = "redis publish of %d message(s) failed; delivering locally only"
                    log.warning(failed, len(batch), exc_info=True)
                    for channel, message in batch:
                        await self.deliver(channel, message)
        finally:
            self._sender = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._listen(), name="subsvc-redis-bus")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), timeout=5)

    async def _listen(self) -> None:
        while True:
            try:
                async with self.redis.pubsub() as pubsub:
                    await pubsub.psubscribe(self.prefix + "*")
                    self._ready.set()
                    async for item in pubsub.listen():
                        if item.get("type") == "pmessage":
                            channel = str(item["channel"]).removeprefix(self.prefix)
                            await self.deliver(channel, str(item["data"]))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("redis bus connection lost; reconnecting", exc_info=True)
                await asyncio.sleep(1)

    async def stop(self) -> None:
        """Send what is queued (for up to ``STOP_SECONDS``), stop listening, disconnect."""
        if self._sender is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._sender), timeout=STOP_SECONDS)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.redis.aclose()


def create_bus(redis_url: str | None) -> Bus:
    return RedisBus(redis_url) if redis_url else Bus()


class Invalidation:
    """When one instance's caches of some data must be dropped: at once and again when a
    change commits here (a read run between the two would keep the old figure), then on every
    other instance through ``bus`` (``channel``). ``generation`` moves on each time: a cache
    keeps a value only if it did not move while the value was read."""

    def __init__(self, bus: Bus, channel: str, forget: Callable[[], None]) -> None:
        self.bus = bus
        self.channel = channel
        self.forget = forget
        self.generation = 0
        self._tasks: set[asyncio.Task[None]] = set()
        bus.subscribe(channel, lambda _message: self.invalidate())

    def invalidate(self) -> None:
        """Drop this instance's copies now."""
        self.generation += 1
        self.forget()

    def invalidate_on_commit(self, session: AsyncSession) -> None:
        """``session`` changes the data: drop the copies now and when it commits, then tell
        the other instances."""
        self.invalidate()
        once_after_commit(session, f"subsvc.invalidate:{self.channel}", self._after_commit)

    def _after_commit(self, _session: Session) -> None:
        self.invalidate()
        try:
            task = asyncio.get_running_loop().create_task(self.bus.publish(self.channel, "*"))
        except RuntimeError:  # no running loop (a synchronous caller): this instance is done anyway
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self) -> None:
        """Wait for the messages being sent (at shutdown)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
