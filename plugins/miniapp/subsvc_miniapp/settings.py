"""Settings of the miniapp plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class MiniAppSettings(PluginSettings):
    """How old the mini app's init data may be, and the maintenance notice it shows."""

    MINIAPP_INIT_DATA_MAX_AGE_SECONDS: int = Field(
        86400, ge=1, description="Oldest init data (its `auth_date`) the mini app's operations accept."
    )
    MAINTENANCE_MODE: bool = Field(
        False, description="The service is under maintenance: `/miniapp/maintenance/status` says so."
    )
    MAINTENANCE_MESSAGE: str = Field(
        "Ведутся технические работы. Попробуйте позже.",
        description="What `/miniapp/maintenance/status` shows while `MAINTENANCE_MODE` is on.",
    )
    MAINTENANCE_REASON: str | None = Field(
        None, description="Why the service is under maintenance (`reason`, while it is); unset = none."
    )
