"""Settings of the segments plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class SegmentSettings(PluginSettings):
    """How recipients are paged and when a user who blocked the bot is tried again."""

    SEGMENTS_PAGE_SIZE: int = Field(
        1000, ge=1, le=100_000, description="Recipients read per query when a segment is walked."
    )
    SEGMENTS_BLOCKED_SKIP_DAYS: int = Field(
        30,
        ge=0,
        description="Messenger recipients leave out users whose chat refused the bot within this "
        "many days (0 = never left out).",
    )
    SEGMENTS_REACHABILITY_FLUSH_SECONDS: float = Field(
        1.0,
        gt=0,
        description="How often the Bot API's answers (blocked, delivered) are written to the users.",
    )
