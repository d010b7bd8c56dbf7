"""Request and response models of `/webhooks` (the reference's fields, plus the deactivation)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field


def _http_url(value: str) -> str:
    """Only absolute http and https URLs with a host can be webhook targets."""
    try:
        parts = urlsplit(value.strip())
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError:
        raise ValueError("URL is not valid") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError("URL must be an absolute http or https URL")
    return value.strip()


WebhookUrl = Annotated[str, Field(min_length=1), AfterValidator(_http_url)]
Name = Annotated[str, Field(min_length=1, max_length=255)]
Secret = Annotated[str, Field(max_length=128)]


class WebhookCreateRequest(BaseModel):
    """A new webhook: it is created active, with zero counters."""

    name: Name
    url: WebhookUrl = Field(description="An http or https URL.")
    event_type: str = Field(
        min_length=1, max_length=50, description="A declared event type (`GET /events/types`) or `*` for all."
    )
    secret: Secret | None = Field(
        default=None, description="Signs each body: `X-Webhook-Signature: sha256=<hex HMAC-SHA256>`."
    )
    description: str | None = None


class WebhookUpdateRequest(BaseModel):
    """The fields to change; absent or null ones stay as they are (an empty `secret` removes it)."""

    name: Name | None = None
    url: WebhookUrl | None = None
    secret: Secret | None = None
    description: str | None = None
    is_active: bool | None = None


class WebhookResponse(BaseModel):
    """A webhook endpoint (the secret is never returned)."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    url: str
    event_type: str
    is_active: bool
    description: str | None
    created_at: datetime
    updated_at: datetime
    last_triggered_at: datetime | None
    failure_count: int
    success_count: int
    has_secret: bool = Field(description="Whether deliveries are signed.")
    failing_since: datetime | None = Field(description="Start of the current run of failed attempts.")
    deactivated_at: datetime | None = Field(description="When it was deactivated for failing.")
    deactivation_reason: str | None = Field(description="Why it was deactivated (null if it was not).")


class WebhookStatsResponse(BaseModel):
    """Totals over every webhook; deliveries are attempts made (pending ones are not counted)."""

    total_webhooks: int
    active_webhooks: int
    total_deliveries: int
    successful_deliveries: int
    failed_deliveries: int
    success_rate: float = Field(description="successful / total × 100, rounded to 2 places; 0.0 if none.")


class WebhookDeliveryResponse(BaseModel):
    """One delivery attempt."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    webhook_id: int
    event_type: str
    payload: dict[str, Any]
    response_status: int | None
    response_body: str | None
    status: str = Field(description="`pending`, `success` or `failed`.")
    error_message: str | None
    attempt_number: int
    created_at: datetime
    delivered_at: datetime | None
    next_retry_at: datetime | None = Field(
        description="Pending: when it is due. Failed: when the next attempt is due (null: given up)."
    )
    delivery_key: str = Field(description="The `X-Webhook-Delivery` header: the same for every attempt.")
    event_id: int | None = Field(description="The id of the event delivered.")
