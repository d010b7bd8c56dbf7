"""Settings of the billing plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class BillingSettings(PluginSettings):
    """Limits of the balance operations."""

    WEB_API_MANUAL_DEPOSIT_MAX_KOPEKS: int = Field(
        1_000_000,
        ge=0,
        description="Largest amount one `POST /users/{user_id}/deposit` credits, in kopeks; 0 = no limit.",
    )
