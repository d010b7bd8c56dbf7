"""The partners plugin's runtime hooks: the settings cache starts and stops with the app; the
individual commission percent it keeps answers referrals' ``referral_commission_percent``."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_partners.config import ConfigCache, cache_of
from subsvc_partners.programme import partner_of


@hookimpl
def startup(app: Starlette) -> None:
    cache_of(app)


@hookimpl
async def shutdown(app: Starlette) -> None:
    cache: ConfigCache | None = getattr(app.state, "partners_config_cache", None)
    if cache is not None:
        await cache.drain()


@hookimpl
async def referral_commission_percent(session: AsyncSession, user_id: int) -> int | None:
    """The user's individual percent (set on approval, by an administrator, or through the Web
    API), else ``None`` (the global percent applies)."""
    row = await partner_of(session, user_id)
    return row.commission_percent if row is not None else None
