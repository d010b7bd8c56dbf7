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
    PAYMENTS_EXPIRE_INTERVAL_SECONDS: int = Field(
        60,
        ge=0,
        le=86_400,
        description=(
            "How often the job `payments.expire_pending` marks the pending payments past their "
            "`expires_at` expired (seconds; 0: never)."
        ),
    )
    PAYMENTS_POLL_INTERVAL_SECONDS: int = Field(
        300,
        ge=0,
        le=86_400,
        description=(
            "How often the job `payments.poll_pending` asks the providers that can report a "
            "payment's status about the pending payments (seconds; 0: never, notifications only)."
        ),
    )
    PAYMENTS_POLL_AFTER_SECONDS: int = Field(
        60,
        ge=0,
        le=86_400,
        description="Age a pending payment reaches before the polling job asks its provider about it.",
    )
    PAYMENTS_RETURN_URL: str | None = Field(
        None,
        description=(
            "Where a provider sends the payer back after paying: `{PAYMENTS_RETURN_URL}?method={id}` "
            "(e.g. `https://cabinet.example.com/balance/top-up/result`); none when unset."
        ),
    )
