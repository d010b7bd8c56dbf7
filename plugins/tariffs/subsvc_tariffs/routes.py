"""`/cabinet/admin/tariffs` (tag Cabinet Admin Tariffs): the tariff catalogue for
administrators. Permissions ``tariffs:read/create/edit/delete`` (behaviours §5, §10). The
service's refusals are answered as ``plugin.py`` declares them."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Query, Router
from subsvc.panel import RESPONSES as PANEL_RESPONSES
from subsvc.panel import failures_as_502
from subsvc.services import services
from subsvc_tariffs import service, sync, views
from subsvc_tariffs.models import Tariff
from subsvc_tariffs.panel import GATEWAY
from subsvc_tariffs.schemas import (
    ExternalSquadInfoResponse,
    MessageResponse,
    ServerInfo,
    SyncSquadsResponse,
    TariffCreateRequest,
    TariffDeletedResponse,
    TariffDetailResponse,
    TariffEvent,
    TariffListResponse,
    TariffSortOrderRequest,
    TariffStatsResponse,
    TariffToggleResponse,
    TariffTrialResponse,
    TariffUpdateRequest,
)
from subsvc_tariffs.settings import TariffsSettings

router = Router(area="cabinet-admin", tag="Cabinet Admin Tariffs", prefix="/cabinet/admin/tariffs")

READ, CREATE, EDIT, DELETE = (f"tariffs:{action}" for action in ("read", "create", "edit", "delete"))
NOT_FOUND = "Tariff not found"
CREATED, UPDATED, DELETED = "tariff.created", "tariff.updated", "tariff.deleted"
PANEL = dict(PANEL_RESPONSES)
REFUSED = {400: "Unknown servers, promo groups or tariffs, or limits that contradict each other (named)"}
IN_USE = {409: "Tariff is used by subscriptions; deactivate it instead of deleting it"}


def _publish(request: Request, session: AsyncSession, kind: str, tariff: Tariff, changes: list[str]) -> None:
    assert tariff.id is not None
    event = TariffEvent(tariff_id=tariff.id, name=tariff.name, is_active=tariff.is_active, changes=changes)
    services(request.app).events.publish(session, kind, event)


def _settings(request: Request) -> TariffsSettings:
    return TariffsSettings.of(request.app)


@router.get("", permission=READ)
async def list_tariffs(
    session: AsyncSession,
    include_inactive: Annotated[
        bool, Query(description="Include inactive tariffs (false: active only)")
    ] = True,
) -> TariffListResponse:
    """Get list of all tariffs: by display order, then id, each with its number of servers
    (``len(allowed_squads)``) and of subscriptions (any status; one grouped query)."""
    tariffs = await service.list_tariffs(session, include_inactive=include_inactive)
    counts = await service.subscription_counts(session, [t.id for t in tariffs if t.id is not None])
    items = [views.list_item(tariff, counts[tariff.id or 0]) for tariff in tariffs]
    return TariffListResponse(tariffs=items, total=len(items))


@router.get("/available-servers", permission=READ)
async def get_available_servers(session: AsyncSession) -> list[ServerInfo]:
    """Get list of all servers for tariff selection (available or not), in the servers'
    sort order."""
    return [views.server_info(server) for server in await views.all_servers(session)]


@router.get("/available-external-squads", permission=READ, responses=PANEL)
async def get_available_external_squads(request: Request) -> list[ExternalSquadInfoResponse]:
    """Fetch external squads from the VPN panel (503 while no panel plugin is installed)."""
    panel = await GATEWAY.require(request.app)
    with failures_as_502():
        squads = await panel.external_squads()
    return [
        ExternalSquadInfoResponse(uuid=s.uuid, name=s.name, members_count=s.members_count) for s in squads
    ]


@router.put("/order", permission=EDIT, responses=REFUSED)
async def update_tariff_order(session: AsyncSession, payload: TariffSortOrderRequest) -> MessageResponse:
    """Update the display order of tariffs: the listed ones first, in the given order; the
    others keep their order after them. 400 for an unknown id."""
    await service.reorder(session, payload.tariff_ids)
    return MessageResponse(message="Tariff order updated successfully")


@router.get("/{tariff_id}", permission=READ)
async def get_tariff(session: AsyncSession, tariff_id: int) -> TariffDetailResponse:
    """Get detailed tariff info: every server and promo group, marked when the tariff has it."""
    tariff = await service.get_tariff(session, tariff_id)
    return await views.detail(session, tariff)


@router.post("", permission=CREATE, responses=REFUSED)
async def create_new_tariff(
    request: Request, session: AsyncSession, payload: TariffCreateRequest
) -> TariffDetailResponse:
    """Create a new tariff (last in the display order). 400 for unknown servers or promo
    groups and for limits that contradict each other."""
    tariff = await service.create_tariff(session, payload)
    _publish(request, session, CREATED, tariff, [])
    return await views.detail(session, tariff)


@router.put("/{tariff_id}", permission=EDIT, responses=REFUSED)
async def update_existing_tariff(
    request: Request, session: AsyncSession, tariff_id: int, payload: TariffUpdateRequest
) -> TariffDetailResponse:
    """Update an existing tariff: absent or null fields stay, except the nullable ones, which
    an explicit null clears. Squad changes reach live subscriptions through ``sync-squads``."""
    tariff, changes = await service.update_tariff(session, tariff_id, payload)
    if changes:
        _publish(request, session, UPDATED, tariff, changes)
    return await views.detail(session, tariff)


@router.delete("/{tariff_id}", permission=DELETE, responses=IN_USE)
async def delete_existing_tariff(
    request: Request, session: AsyncSession, tariff_id: int
) -> TariffDeletedResponse:
    """Delete a tariff. 409 while any subscription uses it (deactivate it instead)."""
    tariff = await service.delete_tariff(session, tariff_id)
    _publish(request, session, DELETED, tariff, [])
    return TariffDeletedResponse(message="Tariff deleted successfully", affected_subscriptions=0)


@router.post("/{tariff_id}/toggle", permission=EDIT)
async def toggle_tariff(request: Request, session: AsyncSession, tariff_id: int) -> TariffToggleResponse:
    """Toggle tariff active status."""
    tariff = await service.toggle_active(session, tariff_id)
    _publish(request, session, UPDATED, tariff, ["is_active"])
    state = "activated" if tariff.is_active else "deactivated"
    return TariffToggleResponse(id=tariff_id, is_active=tariff.is_active, message=f"Tariff {state}")


@router.post("/{tariff_id}/trial", permission=EDIT)
async def toggle_trial_tariff(request: Request, session: AsyncSession, tariff_id: int) -> TariffTrialResponse:
    """Toggle tariff trial availability.

    When enabling trial on a tariff, removes trial flag from all other tariffs
    (only one tariff can be the trial tariff at a time)."""
    tariff = await service.toggle_trial(session, tariff_id)
    _publish(request, session, UPDATED, tariff, ["is_trial_available"])
    state = "set as trial" if tariff.is_trial_available else "removed from trial"
    return TariffTrialResponse(
        id=tariff_id, is_trial_available=tariff.is_trial_available, message=f"Tariff {state}"
    )


@router.get("/{tariff_id}/stats", permission=READ)
async def get_tariff_stats(request: Request, session: AsyncSession, tariff_id: int) -> TariffStatsResponse:
    """Get tariff statistics: subscriptions (all; active = reads as active now; trial = any
    status), and the revenue the payment plugins report for it (hook ``tariff_revenue_kopeks``)."""
    tariff = await service.get_tariff(session, tariff_id)
    found = await service.counts(session, tariff_id)
    revenue = await service.revenue_kopeks(request.app, session, tariff_id)
    return TariffStatsResponse(
        id=tariff_id,
        name=tariff.name,
        subscriptions_count=found.total,
        active_subscriptions=found.active,
        trial_subscriptions=found.trial,
        revenue_kopeks=revenue,
        revenue_rubles=revenue / 100,
    )


@router.post("/{tariff_id}/sync-squads", permission=EDIT, responses=PANEL)
async def sync_tariff_squads(request: Request, session: AsyncSession, tariff_id: int) -> SyncSquadsResponse:
    """Sync squads from tariff to all active/trial subscriptions in the VPN panel.

    Gives each one the tariff's squads and external squad in the panel (subscriptions without
    a panel account are skipped) and, when the panel accepted, in our table. 503 while no
    panel plugin is installed."""
    tariff = await service.get_tariff(session, tariff_id)
    panel = await GATEWAY.require(request.app)
    settings = _settings(request)
    outcome = await sync.sync_squads(
        session,
        panel,
        tariff,
        concurrency=settings.TARIFFS_SYNC_CONCURRENCY,
        max_consecutive_failures=settings.TARIFFS_SYNC_MAX_CONSECUTIVE_FAILURES,
    )
    return SyncSquadsResponse(
        tariff_id=tariff_id,
        tariff_name=tariff.name,
        total_subscriptions=outcome.total,
        updated_count=len(outcome.updated),
        failed_count=outcome.failed,
        skipped_count=outcome.skipped,
        errors=outcome.errors,
    )
