"""Settings of the broadcasts plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class BroadcastsSettings(PluginSettings):
    """How fast broadcasts go, how their senders hold them, how often the upkeep looks."""

    BROADCASTS_MESSAGES_PER_SECOND: int = Field(
        0,
        ge=0,
        le=1000,
        description="Messages a second one process sends for broadcasts at most, below the messenger "
        "client's own limit (MESSENGER_MESSAGES_PER_SECOND), to leave room for other messages "
        "(0 = the messenger's limit only).",
    )
    BROADCASTS_BATCH_SIZE: int = Field(
        100,
        ge=1,
        le=5000,
        description="Recipients a sender claims at a time; progress is saved and a stop is noticed "
        "between batches.",
    )
    BROADCASTS_SEND_CONCURRENCY: int = Field(
        30, ge=1, le=500, description="Messages of one broadcast in flight at once."
    )
    BROADCASTS_LEASE_SECONDS: float = Field(
        60.0,
        gt=0,
        description="A sender holds its broadcast this long per batch; after a crash another process "
        "takes it over once the lease has run out.",
    )
    BROADCASTS_UPKEEP_SECONDS: float = Field(
        5.0,
        ge=0,
        description="How often the worker starts scheduled broadcasts that are due and resumes "
        "broadcasts nobody sends (0 = never; it also runs once when the worker starts).",
    )
    BROADCASTS_PROGRESS_SECONDS: float = Field(
        1.0,
        ge=0,
        description="At most one `broadcast.progress` event per broadcast this often while it sends "
        "(status changes are always published).",
    )
