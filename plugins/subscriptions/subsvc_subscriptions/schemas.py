"""The subscriptions wire contract: requests, the subscription record, the event payload."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal, Self

from pydantic import BaseModel, Field, model_validator
from subsvc_users.api import SubscriptionFields

MAX_DAYS = 36_500
MAX_TRAFFIC_GB = 1_000_000
MAX_DEVICES = 10_000

ChangeKind = Literal["created", "replaced", "extended", "traffic", "devices", "squads", "disabled", "tariff"]
PanelAction = Literal["reset_traffic", "reset_devices"]
"""What the panel integration does once it has pushed a change: reset the traffic used, or
delete the connected devices."""


class SubscriptionStatus(StrEnum):
    """Stored status values of a subscription."""

    TRIAL = "trial"
    ACTIVE = "active"
    EXPIRED = "expired"
    DISABLED = "disabled"
    LIMITED = "limited"
    PENDING = "pending"


class UserSubscriptionCreateRequest(BaseModel):
    """A subscription to create, or to put in place of the user's current one.

    ``period_days`` (the specification's name) and ``duration_days`` (the reference's) are
    one field: give either, or both with the same value.
    """

    is_trial: bool = False
    period_days: int | None = Field(
        None, ge=1, le=MAX_DAYS, description="Length in days; the same as `duration_days`."
    )
    duration_days: int | None = Field(
        None, ge=1, le=MAX_DAYS, description="Length in days; the same as `period_days`."
    )
    traffic_limit_gb: int | None = Field(None, ge=0, le=MAX_TRAFFIC_GB, description="0 = unlimited.")
    device_limit: int | None = Field(None, ge=1, le=MAX_DEVICES)
    squad_uuid: str | None = None
    connected_squads: list[str] | None = None
    replace_existing: bool = False
    subscription_id: int | None = Field(
        None,
        description="The user's subscription to replace with `replace_existing` (default: the current one); "
        "another user's is 404.",
    )

    @model_validator(mode="after")
    def _one_length(self) -> Self:
        if None not in (self.period_days, self.duration_days) and self.period_days != self.duration_days:
            raise ValueError("period_days and duration_days are the same field: give one, or equal values")
        return self

    @property
    def days(self) -> int | None:
        return self.duration_days if self.duration_days is not None else self.period_days


class SubscriptionCreateRequest(UserSubscriptionCreateRequest):
    """``POST /subscriptions``: the user (internal id) and the subscription."""

    user_id: int


class SubscriptionExtendRequest(BaseModel):
    days: int = Field(ge=1, le=MAX_DAYS)


class SubscriptionTrafficRequest(BaseModel):
    gb: int = Field(ge=1, le=MAX_TRAFFIC_GB)


class SubscriptionDevicesRequest(BaseModel):
    devices: int = Field(ge=1, le=MAX_DEVICES)


class SubscriptionSquadRequest(BaseModel):
    squad_uuid: str


class _Owned(BaseModel):
    """The ids a subscription record starts with: ``id``, then ``user_id``. Pydantic orders a
    model's fields from its last base to its first, so a model listing this base last starts
    with them."""

    id: int
    user_id: int


class SubscriptionResponse(SubscriptionFields, _Owned):
    """A subscription as the Web API answers it."""

    panel_sync_state: str = Field(
        default="pending",
        description="Whether the VPN panel has this subscription's latest change: pending, synced or failed.",
    )
    created_at: datetime | None = None
    updated_at: datetime | None = None


class SubscriptionChanged(BaseModel):
    """Payload of ``subscription.changed``: the state the VPN panel must reflect."""

    subscription_id: int
    user_id: int
    change: ChangeKind
    status: str
    is_trial: bool
    end_date: datetime
    traffic_limit_gb: int
    device_limit: int
    connected_squads: list[str]
    short_id: str
    panel_actions: list[PanelAction] = Field(
        default_factory=list, description="Resets to make after the push (a paid change may ask them)."
    )
