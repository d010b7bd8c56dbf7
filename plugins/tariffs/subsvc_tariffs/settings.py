"""Settings of the tariffs plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class TariffsSettings(PluginSettings):
    """How `POST /cabinet/admin/tariffs/{id}/sync-squads` talks to the VPN panel."""

    TARIFFS_SYNC_CONCURRENCY: int = Field(
        5, ge=1, le=100, description="Panel requests a squad sync keeps in flight at once."
    )
    TARIFFS_SYNC_MAX_CONSECUTIVE_FAILURES: int = Field(
        10,
        ge=1,
        description="A squad sync stops calling the panel after this many failures in a row; "
        "the subscriptions left are counted as skipped.",
    )
