"""`GET|PATCH /cabinet/admin/tickets/settings` (tag Cabinet Admin Tickets, permission
`tickets:settings`) and the public `GET /cabinet/info/support-config` (tag Cabinet Info)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError, Router
from subsvc_support.api import MODES, SupportConfig, support_config, update_support_config
from subsvc_support.contact import contact
from subsvc_support.schemas import SupportConfigResponse, TicketSettingsResponse, TicketSettingsUpdateRequest
from subsvc_support.settings import SupportSettings

admin = Router(area="cabinet-admin", tag="Cabinet Admin Tickets", permission="tickets:settings")
info = Router(area="cabinet", tag="Cabinet Info")
SETTINGS = "/cabinet/admin/tickets/settings"
INVALID_MODE = "Invalid support_system_mode. Must be: tickets, contact, or both"


def _settings(config: SupportConfig) -> TicketSettingsResponse:
    return TicketSettingsResponse(
        sla_enabled=config.sla_enabled,
        sla_minutes=config.sla_minutes,
        sla_check_interval_seconds=config.sla_check_interval_seconds,
        sla_reminder_cooldown_minutes=config.sla_reminder_cooldown_minutes,
        support_system_mode=config.system_mode,
        cabinet_user_notifications_enabled=config.cabinet_user_notifications_enabled,
        cabinet_admin_notifications_enabled=config.cabinet_admin_notifications_enabled,
    )


@admin.get(SETTINGS, summary="Get Ticket Settings")
async def get_ticket_settings(request: Request) -> TicketSettingsResponse:
    """Get ticket system settings."""
    return _settings(await support_config(request.app))


@admin.patch(SETTINGS, summary="Update Ticket Settings", responses={400: INVALID_MODE})
async def update_ticket_settings(
    request: Request, session: AsyncSession, payload: TicketSettingsUpdateRequest
) -> TicketSettingsResponse:
    """Update ticket system settings: the fields sent (null: unchanged), stored in one write;
    every instance uses them once committed."""
    changes = payload.model_dump(exclude_none=True)
    mode = changes.pop("support_system_mode", None)
    if mode is not None:
        mode = mode.strip().lower()
        if mode not in MODES:
            raise HTTPError(400, INVALID_MODE)
        changes["system_mode"] = mode
    return _settings(await update_support_config(session, request.app, **changes))


@info.get("/cabinet/info/support-config", public=True, summary="Get Support Config")
async def get_support_config(request: Request) -> SupportConfigResponse:
    """Get support/tickets configuration for cabinet."""
    config = await support_config(request.app)
    settings = SupportSettings.of(request.app)
    reach = contact(settings.SUPPORT_USERNAME, settings.SUPPORT_MESSENGER_LINK_BASE)
    if config.system_mode == "contact":
        support_type = "profile" if reach.is_messenger else "url"
    else:
        support_type = config.system_mode
    return SupportConfigResponse(
        tickets_enabled=config.tickets_enabled,
        support_type=support_type,
        support_url=reach.url,
        support_username=reach.username,
        contact_is_messenger=reach.is_messenger,
    )
