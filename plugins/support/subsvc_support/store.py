"""Reading and writing the support settings row, and the per-instance cache of the
configuration that every instance drops when it changes.

A change is written with one UPDATE of the columns it sets (the row is inserted by the first
change; two first changes at once both land), so concurrent changes of different values never
undo each other. The cache is dropped at once on the writing instance and again after the
commit, when the other instances are told through the bus; a read that began before a change
is never stored after it (a generation number guards the store).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from sqlalchemy import Table, insert, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import once_after_commit, utcnow
from subsvc.services import services
from subsvc_support.config import SupportConfig, combine
from subsvc_support.models import ROW_ID, SupportSettingsRow
from subsvc_support.settings import SupportSettings

INVALIDATE_CHANNEL = "support.invalidate"
_PENDING_KEY = "subsvc_support.config.invalidate"
TABLE: Table = SupportSettingsRow.__table__  # type: ignore[attr-defined]


async def read_row(session: AsyncSession) -> SupportSettingsRow | None:
    """The stored row as this session's transaction sees it (``None`` before any change)."""
    return await session.get(SupportSettingsRow, ROW_ID, populate_existing=True)


async def write_row(session: AsyncSession, values: dict[str, Any]) -> None:
    """Set ``values`` on the row, inserting it on the first change."""
    values = {**values, "updated_at": utcnow()}
    change = update(TABLE).where(TABLE.c.id == ROW_ID).values(**values)
    if (await session.exec(change)).rowcount:
        return
    try:
        async with session.begin_nested():
            await session.exec(insert(TABLE).values(id=ROW_ID, **values))
    except IntegrityError:  # another transaction inserted it meanwhile: change that row
        await session.exec(change)


class ConfigCache:
    """The configuration of one instance, trusted for ``SUPPORT_CONFIG_CACHE_SECONDS``."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.generation = 0
        self.entry: tuple[float, SupportConfig] | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        services(app).bus.subscribe(INVALIDATE_CHANNEL, self._on_message)

    async def get(self) -> SupportConfig:
        now = time.monotonic()
        if self.entry is not None and self.entry[0] > now:
            return self.entry[1]
        generation = self.generation
        settings = SupportSettings.of(self.app)
        async with services(self.app).db.session(read_only=True) as session:
            config = combine(settings, await read_row(session))
        seconds = settings.SUPPORT_CONFIG_CACHE_SECONDS
        if seconds > 0 and generation == self.generation:
            self.entry = (now + seconds, config)
        return config

    def invalidate(self) -> None:
        self.generation += 1
        self.entry = None

    def invalidate_on_commit(self, session: AsyncSession) -> None:
        """Forget the configuration now and when ``session`` commits; then tell the others."""
        self.invalidate()
        once_after_commit(session, _PENDING_KEY, self._after_commit)

    def _after_commit(self, _session: Session) -> None:
        self.invalidate()
        try:
            task = asyncio.get_running_loop().create_task(
                services(self.app).bus.publish(INVALIDATE_CHANNEL, "*")
            )
        except RuntimeError:  # no running loop: this instance has forgotten it anyway
            return
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _on_message(self, _message: str) -> None:
        self.invalidate()

    async def drain(self) -> None:
        """Wait for the messages being sent (at shutdown)."""
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)


def cache_of(app: Starlette) -> ConfigCache:
    """The app's cache, made at its start (or at the first use in an app not started)."""
    cache: ConfigCache | None = getattr(app.state, "support_config_cache", None)
    if cache is None:
        cache = app.state.support_config_cache = ConfigCache(app)
    return cache
