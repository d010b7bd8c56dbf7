"""The partner settings as they are now: the environment's defaults with the stored values over
them, cached per instance (dropped on every instance through the bus when they change).

A change is one UPDATE of the columns it sets (the row is inserted by the first change), so
concurrent changes of different values never undo each other; the cache is dropped at once
and again after the commit, and a read begun before a change is never stored after it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, insert, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import once_after_commit, utcnow
from subsvc.services import services
from subsvc_partners.models import SETTINGS_ROW_ID, PartnerSettingsRow
from subsvc_partners.settings import PartnersSettings

CHANNEL = "partners.settings.invalidate"
CACHE_SECONDS = 60.0
TABLE: Table = PartnerSettingsRow.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class PartnerConfig:
    """The runtime-editable partner settings."""

    withdrawal_enabled: bool
    withdrawal_min_amount_kopeks: int
    withdrawal_cooldown_days: int
    withdrawal_requisites_text: str
    partner_section_visible: bool


FIELDS = tuple(PartnerConfig.__dataclass_fields__)


def combine(settings: PartnersSettings, row: PartnerSettingsRow | None) -> PartnerConfig:
    """The defaults with every value ``row`` sets over them."""
    values: dict[str, Any] = {
        "withdrawal_enabled": settings.REFERRAL_WITHDRAWAL_ENABLED,
        "withdrawal_min_amount_kopeks": settings.REFERRAL_WITHDRAWAL_MIN_AMOUNT_KOPEKS,
        "withdrawal_cooldown_days": settings.REFERRAL_WITHDRAWAL_COOLDOWN_DAYS,
        "withdrawal_requisites_text": settings.REFERRAL_WITHDRAWAL_REQUISITES_TEXT,
        "partner_section_visible": settings.PARTNER_SECTION_VISIBLE,
    }
    if row is not None:
        values.update({name: getattr(row, name) for name in FIELDS if getattr(row, name) is not None})
    return PartnerConfig(**values)


async def read_row(session: AsyncSession) -> PartnerSettingsRow | None:
    """The stored row as ``session``'s transaction sees it."""
    return await session.get(PartnerSettingsRow, SETTINGS_ROW_ID, populate_existing=True)


async def write(session: AsyncSession, app: Starlette, values: dict[str, Any]) -> PartnerConfig:
    """Store ``values`` (fields of :class:`PartnerConfig`) in ``session``'s transaction; every
    instance reads them once it commits. Returns the settings as this transaction sees them."""
    if values:
        values = {**values, "updated_at": utcnow()}
        change = update(TABLE).where(TABLE.c.id == SETTINGS_ROW_ID).values(**values)
        if not (await session.exec(change)).rowcount:
            try:
                async with session.begin_nested():
                    await session.exec(insert(TABLE).values(id=SETTINGS_ROW_ID, **values))
            except IntegrityError:  # inserted by another transaction meanwhile
                await session.exec(change)
        cache_of(app).invalidate_on_commit(session)
    return combine(PartnersSettings.of(app), await read_row(session))


class ConfigCache:
    """One instance's settings, trusted for ``CACHE_SECONDS`` unless told they changed."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.generation = 0
        self.entry: tuple[float, PartnerConfig] | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        services(app).bus.subscribe(CHANNEL, lambda _message: self.invalidate())

    async def get(self) -> PartnerConfig:
        now = time.monotonic()
        if self.entry is not None and self.entry[0] > now:
            return self.entry[1]
        generation = self.generation
        async with services(self.app).db.session(read_only=True) as session:
            config = combine(PartnersSettings.of(self.app), await read_row(session))
        if generation == self.generation:
            self.entry = (now + CACHE_SECONDS, config)
        return config

    def invalidate(self) -> None:
        self.generation += 1
        self.entry = None

    def invalidate_on_commit(self, session: AsyncSession) -> None:
        self.invalidate()
        once_after_commit(session, CHANNEL, self._after_commit)

    def _after_commit(self, _session: Session) -> None:
        self.invalidate()
        try:
            task = asyncio.get_running_loop().create_task(services(self.app).bus.publish(CHANNEL, "*"))
        except RuntimeError:
            return
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def drain(self) -> None:
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)


def cache_of(app: Starlette) -> ConfigCache:
    """The app's cache (made at start, or at the first use)."""
    cache: ConfigCache | None = getattr(app.state, "partners_config_cache", None)
    if cache is None:
        cache = app.state.partners_config_cache = ConfigCache(app)
    return cache


async def partner_config(app: Starlette) -> PartnerConfig:
    """The settings now (from this instance's memory, else read)."""
    return await cache_of(app).get()
