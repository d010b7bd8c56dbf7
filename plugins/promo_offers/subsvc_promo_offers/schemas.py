"""The promo offers wire contract: offers, templates, the log, broadcasts (Web API and Cabinet
Admin) and the cabinet's offers, discounts and loyalty tiers."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from subsvc_users.api import UserSummary

from subsvc.api import BigInt, Page

MAX_VALID_HOURS = 24 * 365 * 10
MAX_BONUS_KOPEKS = 100_000_000
DEFAULT_EFFECT = "percent_discount"

NotificationType = Annotated[str, Field(min_length=1, max_length=100)]
EffectType = Annotated[str, Field(min_length=1, max_length=50)]
ValidHours = Annotated[int, Field(ge=1, le=MAX_VALID_HOURS, description="Срок действия предложения в часах")]
Percent = Annotated[int, Field(ge=0, le=100)]
Bonus = Annotated[int, Field(ge=0, le=MAX_BONUS_KOPEKS)]
TARGET_ALIASES = {
    "no_sub": "no",
    "all_users": "all",
    "active_subscribers": "active",
    "trial_users": "trial",
}


def normalise_target(value: str | None) -> str | None:
    """A segment name trimmed and lower-cased, with the reference's aliases resolved."""
    if value is None:
        return None
    normalised = value.strip().lower()
    return TARGET_ALIASES.get(normalised, normalised)


# --- records -------------------------------------------------------------------------------------


class OfferUserInfo(UserSummary):
    """The user an offer or a log entry belongs to."""

    full_name: str | None = None


class OfferSubscriptionInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    status: str
    is_trial: bool
    start_date: datetime
    end_date: datetime
    autopay_enabled: bool


class PromoOfferResponse(BaseModel):
    """An offer, with its user and (when it names one) subscription."""

    id: int
    user_id: int
    subscription_id: int | None = None
    notification_type: str
    discount_percent: int
    bonus_amount_kopeks: int
    expires_at: datetime
    claimed_at: datetime | None = None
    is_active: bool
    effect_type: str
    extra_data: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime
    updated_at: datetime
    user: OfferUserInfo | None = None
    subscription: OfferSubscriptionInfo | None = None


PromoOfferListResponse = Page[PromoOfferResponse]


class PromoOfferTemplateResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    offer_type: str
    message_text: str
    button_text: str
    valid_hours: int
    discount_percent: int
    bonus_amount_kopeks: int
    active_discount_hours: int | None = None
    test_duration_hours: int | None = None
    test_squad_uuids: list[str] = Field(default_factory=list)
    is_active: bool
    created_by: int | None = None
    created_at: datetime
    updated_at: datetime


class PromoOfferTemplateListResponse(BaseModel):
    items: list[PromoOfferTemplateResponse]


class PromoOfferTemplateUpdateRequest(BaseModel):
    """The fields to change (absent or null: unchanged)."""

    name: str | None = Field(default=None, max_length=255)
    message_text: str | None = Field(default=None, max_length=4096)
    button_text: str | None = Field(default=None, max_length=255)
    valid_hours: int | None = Field(default=None, ge=1, le=MAX_VALID_HOURS)
    discount_percent: int | None = Field(default=None, ge=0, le=100)
    bonus_amount_kopeks: int | None = Field(default=None, ge=0, le=MAX_BONUS_KOPEKS)
    active_discount_hours: int | None = Field(default=None, ge=1, le=MAX_VALID_HOURS)
    test_duration_hours: int | None = Field(default=None, ge=1, le=MAX_VALID_HOURS)
    test_squad_uuids: list[str] | None = None
    is_active: bool | None = None


class PromoOfferLogOfferInfo(BaseModel):
    id: int
    notification_type: str | None = None
    discount_percent: int | None = None
    bonus_amount_kopeks: int | None = None
    effect_type: str | None = None
    expires_at: datetime | None = None
    claimed_at: datetime | None = None
    is_active: bool | None = None


class PromoOfferLogResponse(BaseModel):
    id: int
    user_id: int | None = None
    offer_id: int | None = None
    action: str
    source: str | None = None
    percent: int | None = None
    effect_type: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime
    user: OfferUserInfo | None = None
    offer: PromoOfferLogOfferInfo | None = None


PromoOfferLogListResponse = Page[PromoOfferLogResponse]


# --- creating and broadcasting -------------------------------------------------------------------


class OfferTermsRequest(BaseModel):
    """The terms every offer request carries."""

    notification_type: NotificationType
    valid_hours: ValidHours
    discount_percent: Percent = 0
    bonus_amount_kopeks: Bonus = 0
    effect_type: EffectType = DEFAULT_EFFECT
    extra_data: dict[str, Any] = Field(default_factory=dict)


class PromoOfferCreateRequest(OfferTermsRequest):
    """One offer for one user (named by internal id or messenger id)."""

    user_id: int | None = Field(default=None, ge=1)
    messenger_id: BigInt | None = Field(default=None, ge=1)
    subscription_id: int | None = None


class _Targeted(BaseModel):
    target: str | None = Field(
        default=None,
        max_length=100,
        description=(
            "Категория пользователей для рассылки. Поддерживает те же сегменты, что и API рассылок "
            "(all, active, trial, custom_today и т.д.)."
        ),
    )

    @field_validator("target")
    @classmethod
    def _normalise_target(cls, value: str | None) -> str | None:
        return normalise_target(value)


class WebPromoOfferBroadcastRequest(PromoOfferCreateRequest, _Targeted):
    """The Web API broadcast: offers for a segment and/or one user; no notifications."""


class WebPromoOfferBroadcastResponse(BaseModel):
    created_offers: int
    user_ids: list[int]
    target: str | None = None


class PromoOfferBroadcastRequest(OfferTermsRequest, _Targeted):
    """The Cabinet Admin broadcast: offers for a segment and/or one user, optionally announced
    by a messenger message with a claim button."""

    user_id: int | None = None
    messenger_id: BigInt | None = None
    email: str | None = Field(default=None, max_length=255, description="User email (for email-only users)")
    send_notification: bool = Field(default=False, description="Send a messenger notification to the users")
    message_text: str | None = Field(default=None, max_length=4096, description="Custom message text (HTML)")
    button_text: str | None = Field(default=None, max_length=64, description="Button text")


class PromoOfferBroadcastResponse(BaseModel):
    """The offers made. Notifications are sent in the background: ``notifications_sent`` and
    ``notifications_failed`` are what was done by the time of the answer (usually 0); the
    broadcast ``broadcast_id`` reports the progress."""

    created_offers: int
    user_ids: list[int]
    target: str | None = None
    notifications_sent: int = 0
    notifications_failed: int = 0
    broadcast_id: int | None = None
    messenger_recipients: int = 0


class BroadcastProgress(BaseModel):
    """How far a broadcast's notifications got."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    target: str | None
    notification_type: str
    status: str
    total_count: int
    sent_count: int
    failed_count: int
    blocked_count: int
    created_by: int | None
    created_at: datetime
    started_at: datetime | None
    completed_at: datetime | None


# --- the cabinet ---------------------------------------------------------------------------------


class PromoOfferInfo(BaseModel):
    id: int
    notification_type: str
    discount_percent: int | None = None
    bonus_amount_kopeks: int | None = None
    effect_type: str
    expires_at: datetime
    is_active: bool
    is_claimed: bool
    claimed_at: datetime | None = None
    extra_data: dict[str, Any] | None = None


class ActiveDiscountInfo(BaseModel):
    discount_percent: int
    source: str | None = None
    expires_at: datetime | None = None
    is_active: bool


class ClaimOfferRequest(BaseModel):
    offer_id: int


class ClaimOfferResponse(BaseModel):
    """What a claim did: the discount it activated, the balance bonus it credited, the days it
    added or the servers it connected."""

    success: bool
    message: str
    discount_percent: int | None = None
    expires_at: datetime | None = None
    bonus_amount_kopeks: int | None = None
    balance_kopeks: int | None = None
    subscription_end_date: datetime | None = None


class MessageResponse(BaseModel):
    message: str


class PromoGroupDiscounts(BaseModel):
    group_name: str | None = None
    server_discount_percent: int = 0
    traffic_discount_percent: int = 0
    device_discount_percent: int = 0
    period_discounts: dict[str, int] = Field(default_factory=dict)


class LoyaltyTierInfo(BaseModel):
    id: int
    name: str
    threshold_rubles: float
    server_discount_percent: int = 0
    traffic_discount_percent: int = 0
    device_discount_percent: int = 0
    period_discounts: dict[str, int] = Field(default_factory=dict)
    is_current: bool = False
    is_achieved: bool = False


class LoyaltyTiersResponse(BaseModel):
    tiers: list[LoyaltyTierInfo]
    current_spent_rubles: float
    current_tier_name: str | None = None
    next_tier_name: str | None = None
    next_tier_threshold_rubles: float | None = None
    progress_percent: float = 0


# --- events --------------------------------------------------------------------------------------


class OfferClaimed(BaseModel):
    """Payload of ``promo_offer.claimed``."""

    offer_id: int
    user_id: int
    notification_type: str
    effect_type: str
    discount_percent: int
    bonus_amount_kopeks: int
    claimed_at: datetime


class PromoOfferSegment(BaseModel):
    key: str
    count: int


class PromoOfferSegmentListResponse(BaseModel):
    """Users in each segment, to see a broadcast's reach before sending it."""

    segments: list[PromoOfferSegment]
