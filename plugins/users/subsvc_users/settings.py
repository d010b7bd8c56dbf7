"""Settings of the users plugin (environment variables, like core's)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class UsersSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    USERS_COUNT_CACHE_SECONDS: float = Field(
        5.0,
        ge=0,
        description="How long this process reuses the exact total of a user list filter "
        "(dropped at once when this process changes users); 0 counts on every request.",
    )
