"""Request and response models of the landing operations (names and types as the contract)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

Localized = dict[str, str]
SLUG_PATTERN = r"^[a-z0-9\-]+$"
GuestPurchaseStatus = Literal["pending", "paid", "delivered", "pending_activation", "failed", "expired"]


class LandingFeatureInput(BaseModel):
    icon: str = Field(default="", max_length=100)
    title: Localized = Field(default_factory=dict)
    description: Localized = Field(default_factory=dict)


class LandingPaymentMethodInput(BaseModel):
    method_id: str = Field(max_length=50)
    display_name: str = Field(max_length=200)
    description: Annotated[str, Field(max_length=500)] | None = None
    icon_url: Annotated[str, Field(max_length=500)] | None = None
    sort_order: int = 0
    min_amount_kopeks: int | None = None
    max_amount_kopeks: int | None = None
    currency: Annotated[str, Field(max_length=10)] | None = None
    return_url: Annotated[str, Field(max_length=500)] | None = None
    sub_options: dict[str, bool] | None = None


Percent = Annotated[int, Field(ge=1, le=99)]
Goal = Annotated[str, Field(max_length=64)]


class LandingOptions(BaseModel):
    """What creating and updating a page take alike: optional texts, discount, display options
    (absent or null: none, or in an update unchanged)."""

    subtitle: Localized | None = None
    footer_text: Localized | None = None
    custom_css: Annotated[str, Field(max_length=10000)] | None = None
    meta_title: Localized | None = None
    meta_description: Localized | None = None
    discount_percent: Percent | None = None
    discount_overrides: dict[str, int] | None = None
    discount_starts_at: datetime | None = None
    discount_ends_at: datetime | None = None
    discount_badge_text: Localized | None = None
    background_config: dict[str, Any] | None = None
    analytics_view_goal: Goal | None = None
    analytics_click_goal: Goal | None = None


class LandingCreateRequest(LandingOptions):
    slug: str = Field(min_length=1, max_length=100, pattern=SLUG_PATTERN)
    title: Localized = Field(default_factory=dict)
    is_active: bool = True
    features: list[LandingFeatureInput] = Field(default_factory=list, max_length=20)
    allowed_tariff_ids: list[int] = Field(default_factory=list, max_length=50)
    allowed_periods: dict[str, list[int]] = Field(default_factory=dict)
    payment_methods: list[LandingPaymentMethodInput] = Field(default_factory=list, max_length=10)
    gift_enabled: bool = True
    sticky_pay_button: bool = False
    analytics_view_enabled: bool = False
    analytics_click_enabled: bool = False


class LandingUpdateRequest(LandingOptions):
    slug: Annotated[str, Field(min_length=1, max_length=100, pattern=SLUG_PATTERN)] | None = None
    title: Localized | None = None
    is_active: bool | None = None
    features: Annotated[list[LandingFeatureInput], Field(max_length=20)] | None = None
    allowed_tariff_ids: Annotated[list[int], Field(max_length=50)] | None = None
    allowed_periods: dict[str, list[int]] | None = None
    payment_methods: Annotated[list[LandingPaymentMethodInput], Field(max_length=10)] | None = None
    gift_enabled: bool | None = None
    sticky_pay_button: bool | None = None
    analytics_view_enabled: bool | None = None
    analytics_click_enabled: bool | None = None


class LandingDisplay(BaseModel):
    """The display options a page's detail and its public view answer alike. A model listing it
    as its first base has these fields after those of the bases that follow (pydantic orders the
    fields of the bases from the last): the answers keep the contract's order."""

    background_config: dict[str, Any] | None = None
    sticky_pay_button: bool = False
    analytics_view_enabled: bool = False
    analytics_view_goal: str | None = None
    analytics_click_enabled: bool = False
    analytics_click_goal: str | None = None


class _LandingPage(BaseModel):
    id: int
    slug: str
    title: Localized
    subtitle: Localized | None = None
    is_active: bool
    display_order: int
    features: list[LandingFeatureInput]
    footer_text: Localized | None = None
    allowed_tariff_ids: list[int]
    allowed_periods: dict[str, list[int]]
    payment_methods: list[LandingPaymentMethodInput]
    gift_enabled: bool
    custom_css: str | None = None
    meta_title: Localized | None = None
    meta_description: Localized | None = None
    discount_percent: int | None = None
    discount_overrides: dict[str, int] | None = None
    discount_starts_at: datetime | None = None
    discount_ends_at: datetime | None = None
    discount_badge_text: Localized | None = None


class LandingDetailResponse(LandingDisplay, _LandingPage):
    created_at: datetime | None = None
    updated_at: datetime | None = None


class PurchaseStats(BaseModel):
    total: int = 0
    pending: int = 0
    paid: int = 0
    delivered: int = 0
    pending_activation: int = 0
    failed: int = 0
    expired: int = 0


class LandingListItem(BaseModel):
    id: int
    slug: str
    title: Localized
    is_active: bool
    display_order: int
    gift_enabled: bool
    tariff_count: int
    method_count: int
    purchase_stats: PurchaseStats
    has_active_discount: bool = False
    created_at: datetime | None = None
    updated_at: datetime | None = None


class OrderRequest(BaseModel):
    landing_ids: list[int]


class LandingDailyStat(BaseModel):
    date: str
    created: int = 0
    purchases: int
    revenue_kopeks: int
    gifts: int


class LandingTariffStat(BaseModel):
    tariff_id: int | None = None
    tariff_name: str
    purchases: int
    revenue_kopeks: int


class LandingPaymentMethodStat(BaseModel):
    method: str
    purchases: int
    revenue_kopeks: int


class LandingSourceStat(BaseModel):
    source: str
    purchases: int


class LandingStatsResponse(BaseModel):
    total_purchases: int
    total_revenue_kopeks: int
    total_gifts: int
    total_gifts_claimed: int = 0
    total_regular: int
    avg_purchase_kopeks: int
    total_created: int
    total_successful: int
    conversion_rate: float
    daily_stats: list[LandingDailyStat]
    tariff_stats: list[LandingTariffStat]
    payment_method_stats: list[LandingPaymentMethodStat] = Field(default_factory=list)
    source_stats: list[LandingSourceStat] = Field(default_factory=list)


class LandingPurchaseItem(BaseModel):
    id: int
    token: str
    contact_type: str
    contact_value: str
    is_gift: bool
    gift_recipient_type: str | None = None
    gift_recipient_value: str | None = None
    tariff_name: str | None = None
    period_days: int
    amount_kopeks: int
    currency: str
    payment_method: str | None = None
    status: str
    referrer: str | None = None
    created_at: datetime | None = None
    paid_at: datetime | None = None


class LandingPurchaseListResponse(BaseModel):
    items: list[LandingPurchaseItem]
    total: int


# --- public ---------------------------------------------------------------------------------------


class LandingFeature(BaseModel):
    icon: str = ""
    title: str = ""
    description: str = ""


class LandingTariffPeriod(BaseModel):
    days: int
    label: str
    price_kopeks: int
    price_label: str
    original_price_kopeks: int | None = None
    original_price_label: str | None = None
    discount_percent: int | None = None


class LandingTariff(BaseModel):
    id: int
    name: str
    description: str | None = None
    traffic_limit_gb: int
    device_limit: int
    tier_level: int
    periods: list[LandingTariffPeriod]
    is_daily: bool = False
    daily_price_kopeks: int = 0


class LandingPaymentMethodSubOption(BaseModel):
    id: str
    name: str


class LandingPaymentMethod(BaseModel):
    method_id: str
    display_name: str
    description: str | None = None
    icon_url: str | None = None
    sort_order: int = 0
    min_amount_kopeks: int | None = None
    max_amount_kopeks: int | None = None
    currency: str | None = None
    sub_options: list[LandingPaymentMethodSubOption] | None = None


class LandingDiscountInfo(BaseModel):
    percent: int
    ends_at: str
    badge_text: str | None = None


class _PublicPage(BaseModel):
    slug: str
    title: str
    subtitle: str | None = None
    features: list[LandingFeature]
    footer_text: str | None = None
    tariffs: list[LandingTariff]
    payment_methods: list[LandingPaymentMethod]
    gift_enabled: bool
    custom_css: str | None = None
    meta_title: str | None = None
    meta_description: str | None = None
    discount: LandingDiscountInfo | None = None


class LandingConfigResponse(LandingDisplay, _PublicPage):
    pass  # no docstring: the contract's schema has no description


ContactType = Annotated[str, Field(pattern=r"^(email|messenger)$")]


class PurchaseRequest(BaseModel):
    tariff_id: int
    period_days: int
    contact_type: ContactType
    contact_value: str = Field(min_length=1, max_length=255)
    payment_method: str = Field(min_length=1, max_length=50, pattern=r"^[a-z0-9_]+$")
    is_gift: bool = False
    gift_recipient_type: ContactType | None = None
    gift_recipient_value: Annotated[str, Field(max_length=255)] | None = None
    gift_message: Annotated[str, Field(max_length=1000)] | None = None
    yandex_cid: Annotated[str, Field(max_length=128, pattern=r"^[A-Za-z0-9._:-]{4,128}$")] | None = None
    referrer: Annotated[str, Field(max_length=500)] | None = None
    subid: Annotated[str, Field(max_length=255)] | None = None
    yclid: Annotated[str, Field(max_length=64, pattern=r"^[0-9]{1,64}$")] | None = None
    campaign_slug: Annotated[str, Field(max_length=64)] | None = None


class PurchaseResponse(BaseModel):
    purchase_token: str
    payment_url: str


class PurchaseStatusResponse(BaseModel):
    status: str
    subscription_url: str | None = None
    subscription_crypto_link: str | None = None
    is_gift: bool = False
    contact_value: str | None = None
    recipient_contact_value: str | None = None
    period_days: int | None = None
    tariff_name: str | None = None
    gift_message: str | None = None
    contact_type: str | None = None
    cabinet_email: str | None = None
    cabinet_password: str | None = None
    auto_login_token: str | None = None
    recipient_in_bot: bool | None = None
    bot_link: str | None = None
    is_claimable: bool = False
    claim_url: str | None = None
    bot_claim_link: str | None = None


class GiftClaimRequest(BaseModel):
    email: str = Field(min_length=3, max_length=255)


class GiftClaimResponse(BaseModel):
    status: str
    tariff_name: str | None = None
    period_days: int | None = None
    subscription_url: str | None = None
    subscription_crypto_link: str | None = None
    auto_login_token: str | None = None
