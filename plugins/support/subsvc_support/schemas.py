"""The wire contract of the support settings and the cabinet's support configuration."""

from __future__ import annotations

from pydantic import BaseModel, Field

from subsvc_support.settings import (
    SLA_CHECK_INTERVAL_SECONDS,
    SLA_MINUTES,
    SLA_REMINDER_COOLDOWN_MINUTES,
)


class TicketSettingsResponse(BaseModel):
    """Ticket system settings."""

    sla_enabled: bool
    sla_minutes: int
    sla_check_interval_seconds: int
    sla_reminder_cooldown_minutes: int
    support_system_mode: str
    cabinet_user_notifications_enabled: bool = True
    cabinet_admin_notifications_enabled: bool = True


class TicketSettingsUpdateRequest(BaseModel):
    """Update ticket settings."""

    sla_enabled: bool | None = None
    sla_minutes: int | None = Field(
        None, ge=SLA_MINUTES[0], le=SLA_MINUTES[1], description="SLA time in minutes (1-1440)"
    )
    sla_check_interval_seconds: int | None = Field(
        None,
        ge=SLA_CHECK_INTERVAL_SECONDS[0],
        le=SLA_CHECK_INTERVAL_SECONDS[1],
        description="Check interval (30-600 seconds)",
    )
    sla_reminder_cooldown_minutes: int | None = Field(
        None,
        ge=SLA_REMINDER_COOLDOWN_MINUTES[0],
        le=SLA_REMINDER_COOLDOWN_MINUTES[1],
        description="Reminder cooldown (1-120 minutes)",
    )
    support_system_mode: str | None = Field(None, description="Support mode: tickets, contact, both")
    cabinet_user_notifications_enabled: bool | None = Field(
        None, description="Enable user notifications in cabinet"
    )
    cabinet_admin_notifications_enabled: bool | None = Field(
        None, description="Enable admin notifications in cabinet"
    )


class SupportConfigResponse(BaseModel):
    """Support/tickets configuration for miniapp."""

    tickets_enabled: bool
    support_type: str
    support_url: str | None = None
    support_username: str | None = None
    contact_is_messenger: bool = False
