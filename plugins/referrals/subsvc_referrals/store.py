"""The stored referral settings (one row per value, so concurrent changes of different values
never undo each other) and the configuration every instance caches, dropped on every
instance through the bus when it changes (core's :mod:`subsvc.stored_settings`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Table
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.stored_settings import StoredSettings, write_row
from subsvc_referrals.config import ReferralConfig, combine, validate_change
from subsvc_referrals.models import ReferralSetting
from subsvc_referrals.settings import ReferralSettings

INVALIDATE_CHANNEL = "referrals.invalidate"
TABLE: Table = ReferralSetting.__table__  # type: ignore[attr-defined]


async def read_stored(session: AsyncSession) -> dict[str, Any]:
    """The stored values as this session's transaction sees them."""
    rows = await session.exec(select(col(ReferralSetting.key), col(ReferralSetting.value)))
    return {key: value for key, value in rows.all()}


async def _load(app: Starlette, session: AsyncSession) -> ReferralConfig:
    return combine(ReferralSettings.of(app), await read_stored(session))


CONFIG = StoredSettings(
    INVALIDATE_CHANNEL, _load, lambda app: ReferralSettings.of(app).REFERRAL_CONFIG_CACHE_SECONDS
)


async def referral_settings(app: Starlette) -> ReferralConfig:
    """The referral configuration as it is now (cached per instance)."""
    return await CONFIG.get(app)


async def update_referral_settings(app: Starlette, session: AsyncSession, values: Mapping[str, Any]) -> None:
    """Store ``values`` (names of :class:`ReferralConfig` fields) in the caller's transaction;
    every instance forgets its cached configuration when it commits. :class:`ValueError`
    for an unknown name or a bad value (nothing is written then)."""
    checked = validate_change(values)
    for key, value in checked.items():
        await write_row(session, TABLE, {"key": key}, {"value": value})
    if checked:
        CONFIG.changed(app, session)
