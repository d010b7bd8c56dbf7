"""Servers' ``current_users`` follow subscription changes: each ``subscription.changed``
event marks the counters stale, and one background recount per burst (after
``SERVERS_RECOUNT_DELAY_SECONDS``) sets them from the subscriptions table. Subscriptions that
expire without a change are counted out at the next recount (or ``sync-counts``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from subsvc.db import Database
from subsvc.events import Event
from subsvc_servers import queries

log = logging.getLogger(__name__)


class CountKeeper:
    """Recounts the servers' users once per burst of subscription changes."""

    def __init__(self, db: Database, delay: float) -> None:
        self.db = db
        self.delay = delay
        self.recounts = 0
        self._stale = False
        self._closed = False
        self._task: asyncio.Task[None] | None = None

    def changed(self, event: Event | None = None) -> None:
        """An event subscriber: the counters are stale; recount soon (once for a burst)."""
        if self._closed:
            return
        self._stale = True
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while self._stale and not self._closed:
            await asyncio.sleep(self.delay)
            self._stale = False
            try:
                async with self.db.session() as session:
                    await queries.recount(session)
                    await session.commit()
                self.recounts += 1
            except Exception:
                log.exception("recounting the servers' users failed")

    async def idle(self) -> None:
        """Wait for the recount in progress, if any (tests, shutdown)."""
        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)

    async def close(self) -> None:
        self._closed = True
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
