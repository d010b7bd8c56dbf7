"""Wire shapes of the partner and withdrawal operations (names as in the contract)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field
from subsvc_campaigns.api import CampaignReferralItem, DailyStatItem, PeriodComparison


class PartnerApplicationRequest(BaseModel):
    company_name: str | None = Field(default=None, max_length=255)
    website_url: str | None = Field(default=None, max_length=500)
    messenger_channel: str | None = Field(default=None, max_length=255)
    description: str | None = Field(default=None, max_length=2000)
    expected_monthly_referrals: int | None = Field(default=None, ge=0, le=2_000_000_000)
    desired_commission_percent: int | None = Field(default=None, ge=1, le=100)


class PartnerApplicationInfo(BaseModel):
    id: int
    status: str
    company_name: str | None = None
    website_url: str | None = None
    messenger_channel: str | None = None
    description: str | None = None
    expected_monthly_referrals: int | None = None
    desired_commission_percent: int | None = None
    admin_comment: str | None = None
    approved_commission_percent: int | None = None
    created_at: datetime
    processed_at: datetime | None = None


class PartnerCampaignInfo(BaseModel):
    id: int
    name: str
    start_parameter: str
    bonus_type: str
    balance_bonus_kopeks: int = 0
    subscription_duration_days: int | None = None
    subscription_traffic_gb: int | None = None
    deep_link: str | None = None
    web_link: str | None = None
    registrations_count: int = 0
    referrals_count: int = 0
    earnings_kopeks: int = 0


class PartnerStatusResponse(BaseModel):
    partner_status: str
    commission_percent: int | None = None
    latest_application: PartnerApplicationInfo | None = None
    campaigns: list[PartnerCampaignInfo] = []


class PartnerCampaignDetailedStats(BaseModel):
    campaign_id: int
    campaign_name: str
    registrations_count: int = 0
    referrals_count: int = 0
    earnings_kopeks: int = 0
    conversion_rate: float = 0.0
    earnings_today: int = 0
    earnings_week: int = 0
    earnings_month: int = 0
    daily_stats: list[DailyStatItem] = []
    period_comparison: PeriodComparison
    top_referrals: list[CampaignReferralItem] = []


class WithdrawalBalanceResponse(BaseModel):
    total_earned: int
    referral_spent: int
    withdrawn: int
    pending: int
    available_referral: int
    available_total: int
    only_referral_mode: bool
    min_amount_kopeks: int
    is_withdrawal_enabled: bool
    can_request: bool
    cannot_request_reason: str | None = None
    requisites_text: str = ""


class WithdrawalCreateRequest(BaseModel):
    amount_kopeks: int = Field(gt=0, le=10_000_000)
    payment_details: str = Field(min_length=5, max_length=1000)


class WithdrawalCreateResponse(BaseModel):
    id: int
    amount_kopeks: int
    status: str


class WithdrawalItemResponse(BaseModel):
    id: int
    amount_kopeks: int
    amount_rubles: float
    status: str
    payment_details: str | None = None
    admin_comment: str | None = None
    created_at: datetime
    processed_at: datetime | None = None


class WithdrawalListResponse(BaseModel):
    items: list[WithdrawalItemResponse]
    total: int


class PartnerSettingsResponse(BaseModel):
    withdrawal_enabled: bool
    withdrawal_min_amount_kopeks: int
    withdrawal_cooldown_days: int
    withdrawal_requisites_text: str
    partner_section_visible: bool
    referral_program_enabled: bool
    first_payment_commission_percent: int | None = None
    recurring_commission_tiers: str = ""


class PartnerSettingsUpdateRequest(BaseModel):
    withdrawal_enabled: bool | None = None
    withdrawal_min_amount_kopeks: int | None = Field(default=None, ge=0, le=100_000_000)
    withdrawal_cooldown_days: int | None = Field(default=None, ge=0, le=365)
    withdrawal_requisites_text: str | None = Field(default=None, max_length=2000)
    partner_section_visible: bool | None = None
    referral_program_enabled: bool | None = None
    first_payment_commission_percent: int | None = Field(default=None, ge=0, le=100)
    recurring_commission_tiers: str | None = Field(default=None, max_length=500)


class AdminPartnerApplicationItem(BaseModel):
    id: int
    user_id: int
    username: str | None = None
    first_name: str | None = None
    messenger_id: int | None = None
    company_name: str | None = None
    website_url: str | None = None
    messenger_channel: str | None = None
    description: str | None = None
    expected_monthly_referrals: int | None = None
    desired_commission_percent: int | None = None
    status: str
    admin_comment: str | None = None
    approved_commission_percent: int | None = None
    created_at: datetime
    processed_at: datetime | None = None


class AdminPartnerApplicationsResponse(BaseModel):
    items: list[AdminPartnerApplicationItem]
    total: int


class AdminApproveRequest(BaseModel):
    commission_percent: int = Field(ge=1, le=100)
    comment: str | None = Field(default=None, max_length=2000)


class AdminRejectRequest(BaseModel):
    comment: str | None = Field(default=None, max_length=2000)


class AdminUpdateCommissionRequest(BaseModel):
    commission_percent: int = Field(ge=1, le=100)


class CampaignSummary(BaseModel):
    id: int
    name: str
    start_parameter: str
    is_active: bool
    registrations_count: int = 0
    referrals_count: int = 0
    earnings_kopeks: int = 0


class AdminPartnerItem(BaseModel):
    user_id: int
    username: str | None = None
    first_name: str | None = None
    messenger_id: int | None = None
    commission_percent: int | None = None
    total_referrals: int = 0
    total_earnings_kopeks: int = 0
    balance_kopeks: int = 0
    partner_status: str
    created_at: datetime


class AdminPartnerListResponse(BaseModel):
    items: list[AdminPartnerItem]
    total: int


class AdminPartnerDetailResponse(BaseModel):
    user_id: int
    username: str | None = None
    first_name: str | None = None
    messenger_id: int | None = None
    commission_percent: int | None = None
    partner_status: str
    balance_kopeks: int = 0
    total_referrals: int = 0
    paid_referrals: int = 0
    active_referrals: int = 0
    earnings_all_time: int = 0
    earnings_today: int = 0
    earnings_week: int = 0
    earnings_month: int = 0
    conversion_to_paid: float = 0.0
    campaigns: list[CampaignSummary] = []
    created_at: datetime


class AdminWithdrawalItem(BaseModel):
    id: int
    user_id: int
    username: str | None = None
    first_name: str | None = None
    messenger_id: int | None = None
    amount_kopeks: int
    amount_rubles: float
    status: str
    risk_score: int = 0
    risk_level: str = "low"
    payment_details: str | None = None
    admin_comment: str | None = None
    created_at: datetime
    processed_at: datetime | None = None


class AdminWithdrawalListResponse(BaseModel):
    items: list[AdminWithdrawalItem]
    total: int
    pending_count: int = 0
    pending_total_kopeks: int = 0


class AdminWithdrawalDetailResponse(AdminWithdrawalItem):
    risk_analysis: dict[str, Any] | None = None
    balance_kopeks: int = 0
    total_referrals: int = 0
    total_earnings_kopeks: int = 0


class AdminApproveWithdrawalRequest(BaseModel):
    comment: str | None = Field(default=None, max_length=2000)


class AdminRejectWithdrawalRequest(BaseModel):
    comment: str | None = Field(default=None, max_length=2000)
