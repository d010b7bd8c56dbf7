"""The notifications wire contract: a reported subscription event, its stored record, the
list envelope, and the payload of the event published for each stored record."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from subsvc.api import INT64_MAX

SubscriptionEventType = Literal[
    "activation",
    "purchase",
    "renewal",
    "balance_topup",
    "promocode_activation",
    "referral_link_visit",
    "promo_group_change",
]
EVENT_TYPES: tuple[str, ...] = get_args(SubscriptionEventType)
PROMOCODE_ACTIVATION = "promocode_activation"
PROMOCODE_BALANCE_KEYS = ("balance_before_kopeks", "balance_after_kopeks")


def as_utc(value: datetime) -> datetime:
    """A date-time without an offset is taken as UTC (the reference accepted those)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _blank_to_none(value: str | None) -> str | None:
    if value is None:
        return None
    return value.strip() or None


LenientDatetime = Annotated[datetime, AfterValidator(as_utc)]
Message = Annotated[str | None, Field(max_length=2000), AfterValidator(_blank_to_none)]


class SubscriptionEventCreate(BaseModel):
    """An event the bot reports about a user's subscription, balance or promotions."""

    event_type: SubscriptionEventType
    user_id: int = Field(ge=1, description="Internal id of the user the event concerns.")
    subscription_id: int | None = Field(default=None, ge=1)
    transaction_id: int | None = Field(default=None, ge=1)
    amount_kopeks: int | None = Field(default=None, ge=0, le=INT64_MAX)
    currency: str | None = Field(default=None, min_length=1, max_length=16)
    message: Message = Field(
        default=None, description="Up to 2000 characters; trimmed, and a blank one is stored as null."
    )
    occurred_at: LenientDatetime | None = Field(
        default=None, description="When it happened (default: now); without an offset it is UTC."
    )
    extra: dict[str, Any] = Field(default_factory=dict, description="Free-form details.")


class SubscriptionEventResponse(BaseModel):
    """A stored subscription event with the user it concerns."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    event_type: str
    user_id: int
    user_full_name: str
    user_username: str | None = None
    user_messenger_id: int | None = None
    subscription_id: int | None = None
    transaction_id: int | None = None
    amount_kopeks: int | None = None
    currency: str | None = None
    message: str | None = None
    occurred_at: datetime
    created_at: datetime
    extra: dict[str, Any] = Field(default_factory=dict)


class SubscriptionEventRecorded(SubscriptionEventResponse):
    """Published as ``subscription_event.recorded`` when a reported event is stored: the
    stored record, as ``POST /notifications/subscriptions`` answered it."""
