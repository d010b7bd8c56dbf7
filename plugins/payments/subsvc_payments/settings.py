"""Settings of the payments plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class PaymentsSettings(PluginSettings):
    """How long a payment waits for its provider."""

    PAYMENTS_PENDING_TTL_MINUTES: int = Field(
        60,
        ge=1,
        le=60 * 24 * 30,
        description=(
            "Minutes a new payment stays pending before it expires (its `expires_at`); "
            "a payment paid later is still credited once, and flagged late."
        ),
    )
