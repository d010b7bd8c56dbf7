"""The partner settings as they are now: the environment's defaults with the stored values over
them, cached per instance and dropped on every instance through the bus when they change
(core's :mod:`subsvc.stored_settings`: a change is one UPDATE of the columns it sets, the row
inserted by the first change).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.stored_settings import StoredSettings
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


async def _load(app: Starlette, session: AsyncSession) -> PartnerConfig:
    return combine(PartnersSettings.of(app), await read_row(session))


CONFIG = StoredSettings(CHANNEL, _load, lambda _app: CACHE_SECONDS)


async def write(session: AsyncSession, app: Starlette, values: dict[str, Any]) -> PartnerConfig:
    """Store ``values`` (fields of :class:`PartnerConfig`) in ``session``'s transaction; every
    instance reads them once it commits. Returns the settings as this transaction sees them."""
    return await CONFIG.write(app, session, TABLE, {"id": SETTINGS_ROW_ID}, values)


async def partner_config(app: Starlette) -> PartnerConfig:
    """The settings now (from this instance's memory, else read)."""
    return await CONFIG.get(app)
