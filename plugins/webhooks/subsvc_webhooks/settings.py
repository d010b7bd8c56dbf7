"""Settings of the webhooks plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class WebhookSettings(PluginSettings):
    """Delivery timing, retries, deactivation and the target-address guard."""

    WEBHOOK_TIMEOUT_SECONDS: float = Field(
        10.0, gt=0, description="Seconds one delivery attempt may take in all (connecting: at most 5)."
    )
    WEBHOOK_MAX_ATTEMPTS: int = Field(
        10, ge=1, description="Attempts per event and webhook before the delivery is given up."
    )
    WEBHOOK_RETRY_BASE_SECONDS: float = Field(
        30.0, gt=0, description="Wait before the second attempt; later waits grow by `WEBHOOK_RETRY_FACTOR`."
    )
    WEBHOOK_RETRY_FACTOR: float = Field(
        3.0, ge=1, description="Each wait is this many times the one before (exponential backoff)."
    )
    WEBHOOK_RETRY_MAX_SECONDS: float = Field(
        21600.0,
        gt=0,
        description="Longest wait between two attempts (defaults: 10 attempts over about 21 hours).",
    )
    WEBHOOK_RETRY_JITTER: float = Field(
        0.2, ge=0, le=1, description="Each wait is moved at random by up to this fraction of it, either way."
    )
    WEBHOOK_DEACTIVATE_AFTER_SECONDS: float = Field(
        86400.0,
        ge=0,
        description="A webhook whose attempts have all failed for this long is deactivated, "
        "with the reason recorded (0 = never).",
    )
    WEBHOOK_BLOCK_PRIVATE_TARGETS: bool | None = Field(
        None,
        description="Refuse webhook URLs that are or resolve to private, loopback, link-local or "
        "other non-public addresses (checked when saved and on every connection). Unset: on, "
        "except when `ENVIRONMENT` is `development` or `test`.",
    )
    WEBHOOK_CONCURRENCY: int = Field(32, ge=1, description="Deliveries one worker process sends at once.")
    WEBHOOK_POLL_SECONDS: float = Field(
        5.0,
        gt=0,
        description="How often each worker looks for deliveries that are due (retries, and "
        "anything a restart left behind); new events are sent at once.",
    )
