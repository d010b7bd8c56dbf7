"""Settings of the panel plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class PanelSettings(PluginSettings):
    """Where the VPN panel's REST API is and how patiently it is called."""

    PANEL_API_URL: str | None = Field(
        None, description="Base URL of the VPN panel (calls go to `<url>/api/...`); unset = no panel."
    )
    PANEL_API_KEY: str | None = Field(
        None, description="The panel's API token, sent as `Authorization: Bearer <key>`; unset = no panel."
    )
    PANEL_TIMEOUT_SECONDS: float = Field(
        15.0, gt=0, le=600, description="Seconds to wait for a panel answer before the call fails."
    )
    PANEL_MAX_RETRIES: int = Field(
        2,
        ge=0,
        le=10,
        description="Retries of an idempotent panel call (GET, PUT, PATCH, DELETE) after a failed "
        "connection, a timeout or a 5xx; creations (POST) are never repeated.",
    )
