"""Settings of the billing plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class BillingSettings(BaseSettings):
    """Limits of the balance operations."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    WEB_API_MANUAL_DEPOSIT_MAX_KOPEKS: int = Field(
        1_000_000,
        ge=0,
        description="Largest amount one `POST /users/{user_id}/deposit` credits, in kopeks; 0 = no limit.",
    )
