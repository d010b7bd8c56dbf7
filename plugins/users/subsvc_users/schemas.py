"""The users wire contract: the user record and its summaries, the requests of `/users`, and
the payload of the ``user.created`` event."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, computed_field

from subsvc.api import INT32_MAX, INT64_MAX, Page


class UserStatus(StrEnum):
    """The values of a user's ``status``."""

    ACTIVE = "active"
    BLOCKED = "blocked"
    DELETED = "deleted"


MessengerId = Annotated[int, Field(ge=1, le=INT64_MAX)]
RowId = Annotated[int, Field(ge=1, le=INT32_MAX)]
Text255 = Annotated[str, Field(max_length=255)]
Language = Annotated[str, StringConstraints(strip_whitespace=True, min_length=2, max_length=10)]
ReferralCode = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=32)]
StartParameter = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]


class PromoGroupSummary(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    server_discount_percent: int
    traffic_discount_percent: int
    device_discount_percent: int
    apply_discounts_to_addons: bool = True


class SubscriptionFields(BaseModel):
    """The fields every answer that shows a subscription has: the user record's summary here,
    the subscriptions plugin's record (which puts its ``user_id`` right after ``id``)."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    status: str
    actual_status: str
    is_trial: bool
    start_date: datetime
    end_date: datetime
    traffic_limit_gb: int
    traffic_used_gb: float
    device_limit: int
    autopay_enabled: bool
    autopay_days_before: int | None = None
    subscription_url: str | None = None
    subscription_crypto_link: str | None = None
    connected_squads: list[str] = Field(default_factory=list)


class SubscriptionSummary(SubscriptionFields):
    """A subscription as the user record shows it (filled by the subscriptions plugin)."""

    tariff_id: int | None = None
    tariff_name: str | None = None


class UserSummary(BaseModel):
    """Who a user is: the fields the user record and other plugins' user answers start with."""

    id: int
    messenger_id: int | None = None
    email: str | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None


class UserResponse(UserSummary):
    """The user record: the row, its promo group, and what other plugins add through the
    ``user_record_extras`` hook (``subscription`` and ``subscriptions``)."""

    model_config = ConfigDict(from_attributes=True)

    status: str
    language: str
    balance_kopeks: int
    referral_code: str | None = None
    referred_by_id: int | None = None
    has_had_paid_subscription: bool
    has_made_first_topup: bool
    created_at: datetime
    updated_at: datetime
    last_activity: datetime | None = None
    promo_group: PromoGroupSummary | None = None
    subscription: SubscriptionSummary | None = None
    subscriptions: list[SubscriptionSummary] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def balance_rubles(self) -> float:
        return round(self.balance_kopeks / 100, 2)


UserListResponse = Page[UserResponse]


class UserCreateRequest(BaseModel):
    """A new user; without ``promo_group_id`` the user joins the default promo group."""

    messenger_id: MessengerId | None = None
    username: Text255 | None = None
    first_name: Text255 | None = None
    last_name: Text255 | None = None
    language: Language = "ru"
    referred_by_id: RowId | None = Field(default=None, description="Internal id of the referrer.")
    promo_group_id: RowId | None = None
    start_parameter: StartParameter | None = Field(
        default=None,
        description="The parameter the user started the bot with (`/start <parameter>`): a user's "
        "referral code makes that user the referrer when `referred_by_id` is absent; an active "
        "campaign's start parameter registers the user in that campaign (first touch).",
    )


class UserUpdateRequest(BaseModel):
    """The fields to change; absent or null ones stay as they are."""

    username: Text255 | None = None
    first_name: Text255 | None = None
    last_name: Text255 | None = None
    language: Language | None = None
    status: str | None = Field(default=None, description="active, blocked or deleted (else 400).")
    promo_group_id: RowId | None = None
    referral_code: ReferralCode | None = None
    has_had_paid_subscription: bool | None = None
    has_made_first_topup: bool | None = None


class UserCreatedPayload(BaseModel):
    """Event ``user.created``: a user was added (published in the creating transaction)."""

    user_id: int
    messenger_id: int | None = None
    email: str | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    language: str
    referral_code: str | None = None
    referred_by_id: int | None = None
    promo_group_id: int | None = None
    created_at: datetime
    start_parameter: str | None = Field(
        default=None, description="The bot's start parameter the user was created with, if any."
    )
