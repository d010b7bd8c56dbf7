"""Settings of the bulk_actions plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class BulkActionsSettings(PluginSettings):
    """How a run is applied, held and watched."""

    BULK_ACTIONS_BATCH_SIZE: int = Field(
        200,
        ge=1,
        le=5000,
        description="Targets applied in one transaction; progress is saved and published per batch.",
    )
    BULK_ACTIONS_LEASE_SECONDS: float = Field(
        60.0,
        gt=0,
        description="A process holds its run this long per batch; after a crash another process "
        "takes it over once the lease has run out.",
    )
    BULK_ACTIONS_UPKEEP_SECONDS: float = Field(
        10.0,
        ge=0,
        description="How often the worker resumes runs nobody applies (0 = never; it also runs "
        "once when the worker starts).",
    )
    BULK_ACTIONS_POLL_SECONDS: float = Field(
        1.0,
        gt=0,
        description="A request waiting for a run applied by another process reads its progress "
        "this often (in the same process it is woken at once).",
    )
