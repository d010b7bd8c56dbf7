"""Settings of the panel_sync plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class PanelSyncSettings(PluginSettings):
    """Retry timing of queued changes, batch sizes and concurrency of full syncs, auto sync."""

    PANEL_SYNC_POLL_SECONDS: float = Field(
        5.0, gt=0, description="How often each worker looks for queued subscription changes that are due."
    )
    PANEL_SYNC_RETRY_BASE_SECONDS: float = Field(
        5.0, gt=0, description="Wait before retrying a change the panel did not take; grows by the factor."
    )
    PANEL_SYNC_RETRY_FACTOR: float = Field(
        2.0, ge=1, description="Each wait is this many times the one before."
    )
    PANEL_SYNC_RETRY_MAX_SECONDS: float = Field(
        600.0,
        gt=0,
        description="Longest wait between two attempts (changes are retried until the panel takes them).",
    )
    PANEL_SYNC_CONCURRENCY: int = Field(
        10, ge=1, le=200, description="Panel calls one worker process makes at once."
    )
    PANEL_SYNC_BATCH_SIZE: int = Field(
        500, ge=10, le=5000, description="Subscriptions read (and panel users listed) per page by full syncs."
    )
    PANEL_SYNC_MAX_ERRORS: int = Field(50, ge=1, le=1000, description="Errors kept in a full sync's record.")
    PANEL_SYNC_LEASE_SECONDS: float = Field(
        60.0,
        gt=0,
        description="A claimed change or a running sync not heard from for this long is taken up again.",
    )
    PANEL_SYNC_AUTO_TIMES: str = Field(
        "03:00", description="Comma list of UTC times (HH:MM) at which the auto sync runs once enabled."
    )
