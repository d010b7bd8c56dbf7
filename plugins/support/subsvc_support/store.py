"""The support settings row and the configuration every instance caches (core's
:mod:`subsvc.stored_settings`: one UPDATE of the columns a change sets, the row inserted by
the first change; the cache dropped on every instance through the bus when it changes)."""

from __future__ import annotations

from sqlalchemy import Table
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.stored_settings import StoredSettings
from subsvc_support.config import SupportConfig, combine
from subsvc_support.models import ROW_ID, SupportSettingsRow
from subsvc_support.settings import SupportSettings

INVALIDATE_CHANNEL = "support.invalidate"
TABLE: Table = SupportSettingsRow.__table__  # type: ignore[attr-defined]


async def read_row(session: AsyncSession) -> SupportSettingsRow | None:
    """The stored row as this session's transaction sees it (``None`` before any change)."""
    return await session.get(SupportSettingsRow, ROW_ID, populate_existing=True)


async def _load(app: Starlette, session: AsyncSession) -> SupportConfig:
    return combine(SupportSettings.of(app), await read_row(session))


CONFIG = StoredSettings(
    INVALIDATE_CHANNEL, _load, lambda app: SupportSettings.of(app).SUPPORT_CONFIG_CACHE_SECONDS
)
