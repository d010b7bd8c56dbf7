"""What the Bot API says of users' chats, written to ``users.messenger_blocked_at``.

The messenger client tells its listeners (core :mod:`subsvc.messenger`) when a chat refused
the bot (403) and when a message was delivered. Both are queued here and written in the
background, a few per statement, so a sender never waits on the database (nor on a lock its
own transaction holds): a refusal sets ``messenger_blocked_at``; a later delivery clears it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import Update, bindparam
from starlette.applications import Starlette

from subsvc.db import Database, UTCDateTime, in_list, utcnow
from subsvc_segments.catalogue import USERS

log = logging.getLogger("subsvc.segments.reachability")
BATCH = 500


@functools.cache
def _mark_blocked() -> Update:
    return (
        sa.update(USERS)
        .where(USERS.c.messenger_id == bindparam("chat_id"))
        .values(messenger_blocked_at=bindparam("at", type_=UTCDateTime()))
    )


@functools.cache
def _clear_blocked(dialect: str) -> Update:
    return (
        sa.update(USERS)
        .where(
            in_list(USERS.c.messenger_id, "chat_ids", dialect),
            USERS.c.messenger_blocked_at < bindparam("before", type_=UTCDateTime()),
        )
        .values(messenger_blocked_at=None)
    )


class Reachability:
    """Queues the messenger's answers and writes them every ``interval`` seconds (sooner when
    a refusal arrives or many deliveries wait)."""

    def __init__(self, db: Database, interval: float = 1.0) -> None:
        self.db = db
        self.interval = interval
        self._blocked: dict[int, datetime] = {}
        self._delivered: dict[int, datetime] = {}
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    async def blocked(self, chat_id: int) -> None:
        """A listener for :meth:`subsvc.messenger.Messenger.on_blocked`."""
        self._blocked[chat_id] = utcnow()
        self._delivered.pop(chat_id, None)
        self._wake.set()

    async def delivered(self, chat_id: int) -> None:
        """A listener for :meth:`subsvc.messenger.Messenger.on_delivered`."""
        self._delivered.setdefault(chat_id, utcnow())
        if len(self._delivered) >= BATCH:
            self._wake.set()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="segments-reachability")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.flush()

    async def flush(self) -> None:
        """Write what is queued now. On a database error the refusals stay queued."""
        async with self._lock:
            blocked, self._blocked = self._blocked, {}
            delivered, self._delivered = self._delivered, {}
            try:
                await self._write(blocked, delivered)
            except Exception:
                log.exception(
                    "recording %d blocked and %d delivered chats failed", len(blocked), len(delivered)
                )
                self._blocked = {**blocked, **self._blocked}

    async def _write(self, blocked: dict[int, datetime], delivered: dict[int, datetime]) -> None:
        if not blocked and not delivered:
            return
        async with self.db.session() as session:
            chat_ids = list(delivered)
            for start in range(0, len(chat_ids), BATCH):
                part = chat_ids[start : start + BATCH]
                before = min(delivered[chat_id] for chat_id in part)
                await session.exec(
                    _clear_blocked(self.db.dialect), params={"chat_ids": part, "before": before}
                )
            if blocked:
                rows = [{"chat_id": chat_id, "at": at} for chat_id, at in blocked.items()]
                await session.exec(_mark_blocked(), params=rows)
            await session.commit()

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.interval)
            self._wake.clear()
            await self.flush()


def reachability_of(app: Starlette) -> Reachability:
    """The app's recorder (``await reachability_of(app).flush()`` writes what is queued now)."""
    recorder: Reachability = app.state.segments_reachability
    return recorder
