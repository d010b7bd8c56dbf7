"""Settings of the pinned_messages plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class PinnedMessagesSettings(PluginSettings):
    """How broadcasts and unpins are sent, and how often unfinished ones are looked for."""

    PINNED_MESSAGES_SEND_BATCH: int = Field(
        50,
        ge=1,
        le=1000,
        description="Recipients a sender takes at a time (their state is saved per batch).",
    )
    PINNED_MESSAGES_SEND_CONCURRENCY: int = Field(
        10,
        ge=1,
        le=100,
        description="Recipients of one run served at once (the messenger client keeps its rate limits).",
    )
    PINNED_MESSAGES_SEND_LEASE_SECONDS: float = Field(
        120.0,
        gt=0,
        description="A sender holds its run this long per batch; after a crash another worker takes "
        "the run over once the lease has run out.",
    )
    PINNED_MESSAGES_UNPIN_BEFORE_PIN: bool = Field(
        True,
        description="Unpin every earlier message of a chat before pinning the new one (as the reference).",
    )
    PINNED_MESSAGES_UPKEEP_SECONDS: float = Field(
        60.0,
        ge=0,
        description="How often unfinished runs nobody sends are resumed (0 = never; also once at start).",
    )
