"""Runtime settings stored in the database, cached per instance, dropped through the bus.

A plugin whose administrators change settings at run time declares them once, at module
level: ``CONFIG = StoredSettings(channel, load, seconds)``, where ``load(app, session)`` reads
its own table and combines it with the environment's defaults into a configuration of any
type. Its rules (which values, which checks, how they combine) stay the plugin's; this
module keeps the rest:

- :func:`write_row`: set values on one row of a table (inserted by the first change; two
  first changes at once both land on PostgreSQL), so concurrent changes of different values
  never undo each other;
- :meth:`StoredSettings.get`: the configuration from this instance's memory (for
  ``seconds(app)``; 0 = read at every use), else read in a session of its own. A read that
  began before a change is never kept after it (a generation number guards the store);
- :meth:`StoredSettings.write`: :func:`write_row`, then :meth:`StoredSettings.changed`;
- :meth:`StoredSettings.changed`: after a write, drop the configuration at once and again when
  the transaction commits, then tell the other instances through the bus (channel
  ``channel``; :class:`subsvc.bus.Invalidation`); :meth:`StoredSettings.stop` waits for
  those messages at shutdown.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, TypeVar

from sqlalchemy import Table, insert, update
from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.bus import Invalidation
from subsvc.db import utcnow
from subsvc.services import services

C = TypeVar("C")
_CACHES = "stored_settings"  # app.state attribute: channel -> that app's cache


async def write_row(
    session: AsyncSession, table: Table, key: Mapping[str, Any], values: Mapping[str, Any]
) -> None:
    """Set ``values`` (and ``updated_at``, when ``table`` has it) on the row of ``table`` whose
    columns equal ``key``, inserting it when there is none yet; when another transaction
    inserts it meanwhile, that row is changed instead."""
    values = {**values, "updated_at": utcnow()} if "updated_at" in table.c else dict(values)
    change = update(table).where(*(table.c[name] == value for name, value in key.items())).values(**values)
    if (await session.exec(change)).rowcount:
        return
    try:
        async with session.begin_nested():
            await session.exec(insert(table).values(**key, **values))
    except IntegrityError:  # another transaction inserted it meanwhile: change that row
        await session.exec(change)


class StoredSettings(Generic[C]):
    """A plugin's stored configuration of type ``C``: ``load(app, session)`` reads it as
    ``session``'s transaction sees it; each app keeps it for ``seconds(app)``."""

    def __init__(
        self,
        channel: str,
        load: Callable[[Starlette, AsyncSession], Awaitable[C]],
        seconds: Callable[[Starlette], float],
    ) -> None:
        self.channel = channel
        self.load = load
        self.seconds = seconds

    async def get(self, app: Starlette) -> C:
        """The configuration now: from this instance's memory, else read."""
        return await self._cache(app).get()

    async def read(self, app: Starlette, session: AsyncSession) -> C:
        """The configuration as ``session``'s transaction sees it (never cached)."""
        return await self.load(app, session)

    async def write(
        self,
        app: Starlette,
        session: AsyncSession,
        table: Table,
        key: Mapping[str, Any],
        values: Mapping[str, Any],
    ) -> C:
        """Set ``values`` on ``table``'s row named by ``key`` (:func:`write_row`) in ``session``'s
        transaction, every instance reading them once it commits (nothing written for no
        values); the configuration as this transaction sees it."""
        if values:
            await write_row(session, table, key, values)
            self.changed(app, session)
        return await self.read(app, session)

    def changed(self, app: Starlette, session: AsyncSession) -> None:
        """``session`` wrote the configuration: forget it now and when it commits; then every
        other instance is told."""
        self._cache(app).changes.invalidate_on_commit(session)

    def start(self, app: Starlette) -> None:
        """Make the app's cache (listening on the bus) at start-up."""
        self._cache(app)

    async def stop(self, app: Starlette) -> None:
        """Wait for the messages being sent (at shutdown)."""
        cache: _Cache[C] | None = getattr(app.state, _CACHES, {}).get(self.channel)
        if cache is not None:
            await cache.changes.drain()

    def _cache(self, app: Starlette) -> _Cache[C]:
        """The app's cache, made at its start (or at the first use in an app not started)."""
        caches: dict[str, _Cache[Any]] | None = getattr(app.state, _CACHES, None)
        if caches is None:
            caches = {}
            setattr(app.state, _CACHES, caches)
        cache: _Cache[C] | None = caches.get(self.channel)
        if cache is None:
            cache = caches[self.channel] = _Cache(app, self)
        return cache


class _Cache(Generic[C]):
    """One app's copy of a :class:`StoredSettings`' configuration."""

    def __init__(self, app: Starlette, settings: StoredSettings[C]) -> None:
        self.app = app
        self.settings = settings
        self.entry: tuple[float, C] | None = None
        self.changes = Invalidation(services(app).bus, settings.channel, self._forget)

    async def get(self) -> C:
        now = time.monotonic()
        if self.entry is not None and self.entry[0] > now:
            return self.entry[1]
        generation = self.changes.generation
        async with services(self.app).db.session(read_only=True) as session:
            config = await self.settings.load(self.app, session)
        seconds = self.settings.seconds(self.app)
        if seconds > 0 and generation == self.changes.generation:
            self.entry = (now + seconds, config)
        return config

    def _forget(self) -> None:
        self.entry = None
