"""Wire models of the mini app's dashboard (``POST /miniapp/subscription``), field for field
the contract's (3.36.0 and 4.1.0): what the project has is filled, the rest empty or null."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from subsvc_miniapp.schemas import MiniAppRequest


class MiniAppSubscriptionUser(BaseModel):
    messenger_id: int | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    display_name: str
    language: str | None = None
    status: str
    subscription_status: str
    subscription_actual_status: str
    status_label: str
    expires_at: str | None = None
    device_limit: int | None = None
    traffic_used_gb: float = 0.0
    traffic_used_label: str
    traffic_limit_gb: int | None = None
    traffic_limit_label: str
    lifetime_used_traffic_gb: float = 0.0
    has_active_subscription: bool = False
    promo_offer_discount_percent: int = 0
    promo_offer_discount_expires_at: str | None = None
    promo_offer_discount_source: str | None = None
    is_daily_tariff: bool = False
    is_daily_paused: bool = False
    daily_tariff_name: str | None = None
    daily_price_kopeks: int | None = None
    daily_price_label: str | None = None
    daily_next_charge_at: str | None = None


class MiniAppTrafficPurchase(BaseModel):
    id: int
    traffic_gb: int
    expires_at: str
    created_at: str
    days_remaining: int
    progress_percent: float


class MiniAppConnectedServer(BaseModel):
    uuid: str
    name: str


class MiniAppDevice(BaseModel):
    hwid: str | None = None
    platform: str | None = None
    device_model: str | None = None
    app_version: str | None = None
    last_seen: str | None = None
    last_ip: str | None = None


class MiniAppTransaction(BaseModel):
    id: int
    type: str
    amount_kopeks: int
    amount_rubles: float
    description: str | None = None
    payment_method: str | None = None
    external_id: str | None = None
    is_completed: bool
    created_at: str
    completed_at: str | None = None


class MiniAppPromoOffer(BaseModel):
    id: int
    status: str
    notification_type: str | None = None
    offer_type: str | None = None
    effect_type: str | None = None
    discount_percent: int = 0
    bonus_amount_kopeks: int = 0
    bonus_amount_label: str | None = None
    expires_at: str | None = None
    claimed_at: str | None = None
    is_active: bool = False
    template_id: int | None = None
    template_name: str | None = None
    button_text: str | None = None
    title: str | None = None
    message_text: str | None = None
    icon: str | None = None
    test_squads: list[MiniAppConnectedServer] = Field(default_factory=list)
    active_discount_expires_at: str | None = None
    active_discount_started_at: str | None = None
    active_discount_duration_seconds: int | None = None


class MiniAppPromoGroup(BaseModel):
    id: int
    name: str
    server_discount_percent: int = 0
    traffic_discount_percent: int = 0
    device_discount_percent: int = 0
    period_discounts: dict[str, int] = Field(default_factory=dict)
    apply_discounts_to_addons: bool = True


class MiniAppAutoPromoGroupLevel(BaseModel):
    id: int
    name: str
    threshold_kopeks: int
    threshold_rubles: float
    threshold_label: str
    is_reached: bool = False
    is_current: bool = False
    server_discount_percent: int = 0
    traffic_discount_percent: int = 0
    device_discount_percent: int = 0
    period_discounts: dict[str, int] = Field(default_factory=dict)
    apply_discounts_to_addons: bool = True


class MiniAppSubscriptionAutopay(BaseModel):
    enabled: bool = False
    autopay_enabled: bool | None = None
    autopay_enabled_at: str | None = None
    days_before: int | None = None
    autopay_days_before: int | None = None
    default_days_before: int | None = None
    autopay_days_options: list[int] = Field(default_factory=list)
    days_options: list[int] = Field(default_factory=list)
    options: list[int] = Field(default_factory=list)


class MiniAppBranding(BaseModel):
    service_name: dict[str, str | None] = Field(default_factory=dict)
    service_description: dict[str, str | None] = Field(default_factory=dict)


class MiniAppFaqItem(BaseModel):
    id: int
    title: str | None = None
    content: str | None = None
    display_order: int | None = None


class MiniAppFaq(BaseModel):
    requested_language: str
    language: str
    is_enabled: bool = True
    total: int = 0
    items: list[MiniAppFaqItem] = Field(default_factory=list)


class MiniAppRichTextDocument(BaseModel):
    requested_language: str
    language: str
    title: str | None = None
    is_enabled: bool = True
    content: str = ""
    created_at: str | None = None
    updated_at: str | None = None


class MiniAppLegalDocuments(BaseModel):
    public_offer: MiniAppRichTextDocument | None = None
    service_rules: MiniAppRichTextDocument | None = None
    privacy_policy: MiniAppRichTextDocument | None = None


class MiniAppReferralTerms(BaseModel):
    minimum_topup_kopeks: int = 0
    minimum_topup_label: str | None = None
    first_topup_bonus_kopeks: int = 0
    first_topup_bonus_label: str | None = None
    inviter_bonus_kopeks: int = 0
    inviter_bonus_label: str | None = None
    commission_percent: float = 0.0


class MiniAppReferralStats(BaseModel):
    invited_count: int = 0
    paid_referrals_count: int = 0
    active_referrals_count: int = 0
    total_earned_kopeks: int = 0
    total_earned_label: str | None = None
    month_earned_kopeks: int = 0
    month_earned_label: str | None = None
    conversion_rate: float = 0.0


class MiniAppReferralRecentEarning(BaseModel):
    amount_kopeks: int = 0
    amount_label: str | None = None
    reason: str | None = None
    referral_name: str | None = None
    created_at: str | None = None


class MiniAppReferralItem(BaseModel):
    id: int
    messenger_id: int | None = None
    full_name: str | None = None
    username: str | None = None
    created_at: str | None = None
    last_activity: str | None = None
    has_made_first_topup: bool = False
    balance_kopeks: int = 0
    balance_label: str | None = None
    total_earned_kopeks: int = 0
    total_earned_label: str | None = None
    topups_count: int = 0
    days_since_registration: int | None = None
    days_since_activity: int | None = None
    status: str | None = None


class MiniAppReferralList(BaseModel):
    total_count: int = 0
    has_next: bool = False
    has_prev: bool = False
    current_page: int = 1
    total_pages: int = 1
    items: list[MiniAppReferralItem] = Field(default_factory=list)


class MiniAppReferralInfo(BaseModel):
    referral_code: str | None = None
    referral_link: str | None = None
    bot_referral_link: str | None = None
    terms: MiniAppReferralTerms | None = None
    stats: MiniAppReferralStats | None = None
    recent_earnings: list[MiniAppReferralRecentEarning] = Field(default_factory=list)
    referrals: MiniAppReferralList | None = None


class MiniAppTrafficTopupPackage(BaseModel):
    gb: int
    price_kopeks: int
    price_label: str
    original_price_kopeks: int | None = None
    original_price_label: str | None = None
    discount_percent: int = 0


class MiniAppTariffFacts(BaseModel):
    """What the dashboard's current tariff and the tariff list both say of a tariff."""

    id: int
    name: str
    description: str | None = None
    tier_level: int = 1
    traffic_limit_gb: int
    traffic_limit_label: str
    is_unlimited_traffic: bool = False
    device_limit: int
    servers_count: int


class MiniAppCurrentTariff(MiniAppTariffFacts):
    monthly_price_kopeks: int = 0
    traffic_topup_enabled: bool = False
    traffic_topup_packages: list[MiniAppTrafficTopupPackage] = Field(default_factory=list)
    max_topup_traffic_gb: int = 0
    available_topup_gb: int | None = None
    is_daily: bool = False
    daily_price_kopeks: int = 0
    daily_price_label: str | None = None


class MiniAppSubscriptionResponse(BaseModel):
    success: bool = True
    subscription_id: int | None = None
    panel_short_uuid: str | None = None
    user: MiniAppSubscriptionUser
    traffic_purchases: list[MiniAppTrafficPurchase] = Field(default_factory=list)
    subscription_url: str | None = None
    hide_subscription_link: bool = False
    subscription_crypto_link: str | None = None
    subscription_purchase_url: str | None = None
    links: list[str] = Field(default_factory=list)
    ss_conf_links: dict[str, str] = Field(default_factory=dict)
    connected_squads: list[str] = Field(default_factory=list)
    connected_servers: list[MiniAppConnectedServer] = Field(default_factory=list)
    connected_devices_count: int = 0
    connected_devices: list[MiniAppDevice] = Field(default_factory=list)
    happ: dict[str, Any] | None = None
    happ_link: str | None = None
    happ_crypto_link: str | None = None
    happ_cryptolink_redirect_link: str | None = None
    happ_cryptolink_redirect_template: str | None = None
    balance_kopeks: int = 0
    balance_rubles: float = 0.0
    balance_currency: str | None = None
    transactions: list[MiniAppTransaction] = Field(default_factory=list)
    promo_offers: list[MiniAppPromoOffer] = Field(default_factory=list)
    promo_group: MiniAppPromoGroup | None = None
    auto_assign_promo_groups: list[MiniAppAutoPromoGroupLevel] = Field(default_factory=list)
    total_spent_kopeks: int = 0
    total_spent_rubles: float = 0.0
    total_spent_label: str | None = None
    subscription_type: str
    autopay_enabled: bool = False
    autopay_days_before: int | None = None
    autopay_days_options: list[int] = Field(default_factory=list)
    autopay: MiniAppSubscriptionAutopay | None = None
    autopay_settings: MiniAppSubscriptionAutopay | None = None
    branding: MiniAppBranding | None = None
    faq: MiniAppFaq | None = None
    legal_documents: MiniAppLegalDocuments | None = None
    referral: MiniAppReferralInfo | None = None
    subscription_missing: bool = False
    subscription_missing_reason: str | None = None
    trial_available: bool = False
    trial_duration_days: int | None = None
    trial_status: str | None = None
    trialPaymentRequired: bool = False
    trialPriceKopeks: int | None = None
    trialPriceLabel: str | None = None
    salesMode: str = "classic"
    currentTariff: MiniAppCurrentTariff | None = None


class MiniAppSubscriptionAutopayRequest(MiniAppRequest):
    """The subscription (default: the current one), autopay on or off (default: as it is) and
    the days before the end it renews."""

    subscriptionId: int | None = None
    enabled: bool | None = None
    daysBefore: int | None = None


class MiniAppSubscriptionAutopayResponse(BaseModel):
    success: bool = True
    subscriptionId: int | None = None
    autopay_enabled: bool = False
    autopay_days_before: int | None = None
    autopay_days_options: list[int] = Field(default_factory=list)
    autopay: MiniAppSubscriptionAutopay | None = None
    autopay_settings: MiniAppSubscriptionAutopay | None = None
