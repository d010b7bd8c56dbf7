"""Reading and writing the stored referral settings (one row per value, so concurrent changes
of different values never undo each other), and the per-instance cache of the configuration
that every instance drops when it changes (the ``support`` plugin's approach).

The cache is dropped at once on the writing instance and again after the commit, when the
other instances are told through the bus; a read that began before a change is never stored
after it (a generation number guards the store).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Table, insert, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import once_after_commit, utcnow
from subsvc.services import services
from subsvc_referrals.config import ReferralConfig, combine, validate_change
from subsvc_referrals.models import ReferralSetting
from subsvc_referrals.settings import ReferralSettings

INVALIDATE_CHANNEL = "referrals.invalidate"
_PENDING_KEY = "subsvc_referrals.config.invalidate"
TABLE: Table = ReferralSetting.__table__  # type: ignore[attr-defined]


async def read_stored(session: AsyncSession) -> dict[str, Any]:
    """The stored values as this session's transaction sees them."""
    rows = await session.exec(select(col(ReferralSetting.key), col(ReferralSetting.value)))
    return {key: value for key, value in rows.all()}


async def _write(session: AsyncSession, key: str, value: Any) -> None:
    now = utcnow()
    change = update(TABLE).where(TABLE.c.key == key).values(value=value, updated_at=now)
    if (await session.exec(change)).rowcount:
        return
    try:
        async with session.begin_nested():
            await session.exec(insert(TABLE).values(key=key, value=value, updated_at=now))
    except IntegrityError:  # another transaction inserted it meanwhile: change that row
        await session.exec(change)


class ConfigCache:
    """The configuration of one instance, trusted for ``REFERRAL_CONFIG_CACHE_SECONDS``."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.generation = 0
        self.entry: tuple[float, ReferralConfig] | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        services(app).bus.subscribe(INVALIDATE_CHANNEL, self._on_message)

    async def get(self) -> ReferralConfig:
        now = time.monotonic()
        if self.entry is not None and self.entry[0] > now:
            return self.entry[1]
        generation = self.generation
        settings = ReferralSettings.of(self.app)
        async with services(self.app).db.session(read_only=True) as session:
            config = combine(settings, await read_stored(session))
        seconds = settings.REFERRAL_CONFIG_CACHE_SECONDS
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
    cache: ConfigCache | None = getattr(app.state, "referral_config_cache", None)
    if cache is None:
        cache = app.state.referral_config_cache = ConfigCache(app)
    return cache


async def referral_settings(app: Starlette) -> ReferralConfig:
    """The referral configuration as it is now (cached per instance)."""
    return await cache_of(app).get()


async def update_referral_settings(app: Starlette, session: AsyncSession, values: Mapping[str, Any]) -> None:
    """Store ``values`` (names of :class:`ReferralConfig` fields) in the caller's transaction;
    every instance forgets its cached configuration when it commits. :class:`ValueError`
    for an unknown name or a bad value (nothing is written then)."""
    checked = validate_change(values)
    for key, value in checked.items():
        await _write(session, key, value)
    if checked:
        cache_of(app).invalidate_on_commit(session)
