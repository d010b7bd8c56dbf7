"""The servers plugin's runtime hooks (live counts) and its promo_groups implementation."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.api import HTTPError
from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_servers import service
from subsvc_servers.counts import CountKeeper
from subsvc_servers.panel import sync_with_panel
from subsvc_servers.settings import ServersSettings

SUBSCRIPTION_CHANGED = "subscription.changed"


@hookimpl
def startup(app: Starlette) -> None:
    settings = ServersSettings.of(app)
    keeper = CountKeeper(services(app).db, settings.SERVERS_RECOUNT_DELAY_SECONDS)
    app.state.servers_counts = keeper
    if settings.SERVERS_LIVE_COUNTS:
        services(app).events.subscribe(SUBSCRIPTION_CHANGED, keeper.changed)


@hookimpl
async def shutdown(app: Starlette) -> None:
    await app.state.servers_counts.close()


@hookimpl
def promo_group_deleting(
    app: Starlette, session: AsyncSession, group_id: int, fallback_group_id: int
) -> Awaitable[None]:
    """The servers a deleted group could buy go to the default group (they stay restricted)."""
    return service.move_promo_group(session, group_id, fallback_group_id)


@hookimpl(optionalhook=True)
async def panel_sync_servers(app: Starlette) -> dict[str, Any]:
    """A sync from the panel brings the servers in step with the panel's squads."""
    try:
        async with services(app).db.session() as session:
            result = await sync_with_panel(app, session)
            await session.commit()
    except HTTPError as exc:
        return {"success": False, "error": str(exc.detail)}
    return {"success": True, "created": result.created, "updated": result.updated,
            "removed": result.removed, "total": result.total}  # fmt: skip
