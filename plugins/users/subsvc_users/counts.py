"""Exact totals of user lists, remembered for a few seconds per filter, counted once at a time.

Counting a million rows costs tens of milliseconds on PostgreSQL; a list page costs well
under one. The total of each filter (status, promo group, search text) is therefore kept for
``USERS_COUNT_CACHE_SECONDS`` in this process and dropped when this process commits a change
to users (creation, deletion, a change of a filtered field). Other instances' changes show
after at most that many seconds. A count that started before a change is never stored after
it (a generation number guards the store).
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import once_after_commit

_PENDING_KEY = "subsvc_users.counts.invalidate"


class CountCache:
    """Totals per filter key, each for ``seconds`` (0 = never kept), at most ``max_entries``
    (least recently used dropped first)."""

    def __init__(self, seconds: float, max_entries: int = 512) -> None:
        self.seconds = seconds
        self.max_entries = max_entries
        self.generation = 0
        self._entries: OrderedDict[Hashable, tuple[float, int]] = OrderedDict()
        self._counting: dict[Hashable, asyncio.Future[int | None]] = {}

    async def total(self, key: Hashable, count: Callable[[], Awaitable[int]]) -> int:
        """The kept total of ``key``, or ``count()``'s. Requests that miss while a count of the
        same key is running wait for that count instead of starting their own: when a total
        expires under load, the database counts once, not once per waiting request."""
        kept = self.get(key)
        if kept is not None:
            return kept
        while (running := self._counting.get(key)) is not None:
            shared = await asyncio.shield(running)
            if shared is not None:
                return shared
            # that count failed: the first waiter to wake counts again, the others wait for it
        future: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._counting[key] = future
        generation = self.generation
        result: int | None = None
        try:
            result = await count()
        finally:
            if self._counting.get(key) is future:
                del self._counting[key]
            future.set_result(result)
        self.put(key, result, generation)
        return result

    def get(self, key: Hashable) -> int | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, total = entry
        if expires <= time.monotonic():
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return total

    def put(self, key: Hashable, total: int, generation: int) -> None:
        """Keep ``total``, counted when :attr:`generation` was ``generation``, unless users
        changed since."""
        if self.seconds <= 0 or generation != self.generation:
            return
        self._entries[key] = (time.monotonic() + self.seconds, total)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def invalidate(self) -> None:
        self.generation += 1
        self._entries.clear()

    def invalidate_on_commit(self, session: AsyncSession) -> None:
        """Forget every total now and again when ``session`` commits (a count run between
        the two would otherwise keep the old figure)."""
        self.invalidate()
        once_after_commit(session, _PENDING_KEY, lambda _: self.invalidate())


def count_cache(app: Starlette) -> CountCache:
    """The app's cache (made at start-up from the users plugin's settings)."""
    cache: CountCache | None = getattr(app.state, "users_count_cache", None)
    if cache is None:
        settings = app.state.settings_of.get("users")
        cache = CountCache(settings.USERS_COUNT_CACHE_SECONDS if settings is not None else 0.0)
        app.state.users_count_cache = cache
    return cache
