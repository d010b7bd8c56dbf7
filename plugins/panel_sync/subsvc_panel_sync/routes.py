"""The sync endpoints: Web API (tag ``panel``, ``/panel/sync/...``) and Cabinet Admin
(tag ``Cabinet Admin Panel``, ``/cabinet/admin/panel/sync/...``). Full syncs are started
in the background: the answer carries the run id; ``GET /panel/sync/status`` (and the
``panel_sync.progress`` events on the admin WebSocket) follow it."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Query, Router, operation
from subsvc.api.outcome import Outcome, with_body
from subsvc.panel import NOT_CONFIGURED
from subsvc.panel import RESPONSES as PANEL_RESPONSES
from subsvc_panel_sync import service
from subsvc_panel_sync.importing import sync_servers
from subsvc_panel_sync.schemas import (
    AutoSyncRunResponse,
    AutoSyncStatus,
    AutoSyncToggleRequest,
    PanelGenericSyncResponse,
    PanelSyncFromPanelRequest,
    SubscriptionSyncState,
    SyncMode,
    SyncResponse,
    SyncStatusResponse,
)

web = Router(area="web", tag="panel", prefix="/panel/sync")
admin = Router(area="cabinet-admin", tag="Cabinet Admin Panel", prefix="/cabinet/admin/panel/sync")
READ, SYNC, MANAGE = "panel:read", "panel:sync", "panel:manage"
STARTED = {409: "Another panel sync is running", 503: NOT_CONFIGURED}
LIVE = dict(PANEL_RESPONSES)

KINDS = {
    "/to-panel": ("to_panel", "Sync To Panel"),
    "/subscriptions/validate": ("validate", "Validate And Fix Subscriptions"),
    "/subscriptions/cleanup": ("cleanup", "Cleanup Orphaned Subscriptions"),
    "/subscriptions/statuses": ("statuses", "Sync Subscription Statuses"),
}


def _mount_starter(path: str, kind: str, summary: str) -> None:
    """Serve starting a ``kind`` sync in both areas."""

    async def start(request: Request, session: AsyncSession) -> Outcome:
        message, data = await service.begin(request.app, session, kind)
        return Outcome(message, data=data)

    started = operation("POST", path, summary=summary, responses=STARTED)(start)
    doing = f"Start {service.LABELS[kind].lower()} in the background"
    web.mount(
        started,
        name=f"web_{kind}",
        response_model=PanelGenericSyncResponse,
        description=f"{doing}; follow it at `/panel/sync/status`.",
    )
    admin.mount(
        started, name=f"admin_{kind}", response_model=SyncResponse, permission=SYNC, description=f"{doing}."
    )


@operation("GET", "/status", summary="Get Sync Status", responses={404: service.RUN_NOT_FOUND})
async def sync_status(  # served in both areas
    session: AsyncSession, run_id: Annotated[int | None, Query(ge=1)] = None
) -> SyncStatusResponse:
    """A full sync's progress (the latest, or `run_id`) and the subscriptions by sync state."""
    return await service.status(session, run_id)


for _path, (_kind, _summary) in KINDS.items():
    _mount_starter(_path, _kind, _summary)


@operation("POST", "/from-panel", summary="Sync From Panel", responses=STARTED)
async def from_panel(  # served in both areas (the Web API reads its own model of the body)
    request: Request, session: AsyncSession, payload: SyncMode
) -> Outcome:
    message, data = await service.begin(request.app, session, "from_panel", payload.mode)
    return Outcome(message, data=data)


# --- Web API ----------------------------------------------------------------------------------


web.mount(
    with_body(from_panel, PanelSyncFromPanelRequest),
    name="web_from_panel",
    response_model=PanelGenericSyncResponse,
    description=(
        "Start importing the panel's users (mode `all`, `new_only`, `update_only`) in the background."
    ),
)


@web.get("/recommendations", summary="Get Sync Recommendations", responses=LIVE)
async def web_recommendations(request: Request, session: AsyncSession) -> PanelGenericSyncResponse:
    """Counts on both sides, the change queue, and what to run about them."""
    data = await service.recommendations(request.app, session)
    return PanelGenericSyncResponse(success=True, detail=None, data=data)


web.mount(sync_status, name="web_status")


@web.get(
    "/subscriptions/{subscription_id}",
    summary="Get Subscription Sync State",
    responses={404: service.SUBSCRIPTION_NOT_FOUND},
)
async def web_subscription_state(session: AsyncSession, subscription_id: int) -> SubscriptionSyncState:
    """Whether the subscription's last change reached the panel (`pending`, `synced`, `failed`)."""
    return await service.subscription_state(session, subscription_id)


# --- Cabinet Admin --------------------------------------------------------------------------


admin.mount(
    from_panel,
    name="admin_from_panel",
    response_model=SyncResponse,
    permission=SYNC,
    description="Sync users from the panel to the service (in the background).",
)


@admin.get("/recommendations", summary="Get Sync Recommendations", permission=READ, responses=LIVE)
async def admin_recommendations(request: Request, session: AsyncSession) -> SyncResponse:
    """Get sync recommendations."""
    data = await service.recommendations(request.app, session)
    return SyncResponse(success=True, message="Sync recommendations", data=data)


admin.mount(sync_status, name="admin_status", permission=READ)


@admin.post("/servers", summary="Sync Servers", permission=SYNC, responses={503: NOT_CONFIGURED})
async def admin_servers(request: Request) -> SyncResponse:
    """Sync servers (squads) from the panel through the servers plugin, when it runs."""
    service.panel(request.app)
    result = await sync_servers(request.app)
    if result.get("skipped"):
        return SyncResponse(success=True, message=f"Skipped: {result['reason']}", data=result)
    if not result.get("success"):
        return SyncResponse(success=False, message=result.get("error"), data=result)
    return SyncResponse(success=True, message="Servers synced with the panel", data=result)


@admin.get("/auto/status", summary="Get Auto Sync Status", permission=READ)
async def auto_status(request: Request, session: AsyncSession) -> AutoSyncStatus:
    """Get auto sync status."""
    return await service.auto_status(request.app, session)


@admin.post("/auto/toggle", summary="Toggle Auto Sync", permission=MANAGE)
async def auto_toggle(
    request: Request, session: AsyncSession, payload: AutoSyncToggleRequest
) -> SyncResponse:
    """Toggle auto sync on/off."""
    data = await service.toggle(request.app, session, payload.enabled)
    return SyncResponse(
        success=True, message=f"Auto sync {'enabled' if payload.enabled else 'disabled'}", data=data
    )


@admin.post("/auto/run", summary="Run Auto Sync Now", permission=SYNC)
async def auto_run(request: Request, session: AsyncSession) -> AutoSyncRunResponse:
    """Run auto sync now (in the background: from the panel, then servers)."""
    return await service.auto_run(request.app, session)


endpoints = [*web.endpoints, *admin.endpoints]
