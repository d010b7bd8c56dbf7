"""Settings of the users plugin (environment variables, like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class UsersSettings(PluginSettings):
    USERS_COUNT_CACHE_SECONDS: float = Field(
        5.0,
        ge=0,
        description="How long this process reuses the exact total of a user list filter "
        "(dropped at once when this process changes users); 0 counts on every request.",
    )
