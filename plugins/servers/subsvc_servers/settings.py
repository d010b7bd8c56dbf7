"""Settings of the servers plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class ServersSettings(PluginSettings):
    """How the servers' user counters follow subscription changes."""

    SERVERS_LIVE_COUNTS: bool = Field(
        True,
        description="Recount every server's current users after subscription changes "
        "(`subscription.changed` events); off = only `POST /servers/sync-counts` recounts.",
    )
    SERVERS_RECOUNT_DELAY_SECONDS: float = Field(
        1.0,
        ge=0,
        le=3600,
        description="After a subscription change, wait this long before recounting, so that "
        "a burst of changes costs one recount.",
    )
