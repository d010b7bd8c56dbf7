"""Wire shapes of the Web API "partners" operations (names as in the contract)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class NamedUser(BaseModel):
    """A user as the partners items name them (their first fields)."""

    id: int
    messenger_id: int | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None


class PartnerReferrerItem(NamedUser):
    referral_code: str | None = None
    referral_commission_percent: int | None = None
    effective_referral_commission_percent: int
    invited_count: int
    active_referrals: int
    total_earned_kopeks: int
    total_earned_rubles: float
    month_earned_kopeks: int
    month_earned_rubles: float
    created_at: datetime
    last_activity: datetime | None = None


class PartnerReferrerListResponse(BaseModel):
    items: list[PartnerReferrerItem] = []
    total: int
    limit: int
    offset: int


class PartnerReferralItem(BaseModel):
    id: int
    messenger_id: int | None = None
    full_name: str
    username: str | None = None
    created_at: datetime
    last_activity: datetime | None = None
    has_made_first_topup: bool
    balance_kopeks: int
    balance_rubles: float
    total_earned_kopeks: int
    total_earned_rubles: float
    topups_count: int
    days_since_registration: int
    days_since_activity: int | None = None
    status: str


class PartnerReferralList(BaseModel):
    items: list[PartnerReferralItem] = []
    total: int
    limit: int
    offset: int
    has_next: bool
    has_prev: bool
    current_page: int
    total_pages: int


class PartnerReferrerDetail(BaseModel):
    referrer: PartnerReferrerItem
    referrals: PartnerReferralList


class PartnerReferralCommissionUpdate(BaseModel):
    referral_commission_percent: int | None = Field(default=None, ge=0, le=100)


class GlobalPartnerSummary(BaseModel):
    total_referrers: int
    total_referrals: int
    paid_referrals: int
    conversion_rate_percent: float
    avg_earnings_per_referral_kopeks: float


class PayoutsByPeriod(BaseModel):
    all_time_kopeks: int
    year_kopeks: int
    month_kopeks: int
    week_kopeks: int
    today_kopeks: int


class EarningsByPeriod(PayoutsByPeriod):
    pass


class NewReferralsByPeriod(BaseModel):
    today: int
    week: int
    month: int


class GlobalPartnerStats(BaseModel):
    summary: GlobalPartnerSummary
    payouts: PayoutsByPeriod
    new_referrals: NewReferralsByPeriod


class DailyStats(BaseModel):
    date: str
    referrals_count: int
    earnings_kopeks: int


class DailyStatsResponse(BaseModel):
    items: list[DailyStats]
    days: int
    user_id: int | None = None


class TopReferrerItem(NamedUser):
    full_name: str
    referral_code: str | None = None
    referrals_count: int
    total_earnings_kopeks: int


class TopReferrersResponse(BaseModel):
    items: list[TopReferrerItem]
    days: int | None = None


class ReferrerSummary(BaseModel):
    total_referrals: int
    paid_referrals: int
    active_referrals: int
    conversion_to_paid_percent: float
    conversion_to_active_percent: float
    avg_earnings_per_referral_kopeks: float


class ReferralsCountByPeriod(BaseModel):
    all_time: int
    year: int
    month: int
    week: int
    today: int


class ReferrerDetailedStats(BaseModel):
    user_id: int
    summary: ReferrerSummary
    earnings: EarningsByPeriod
    referrals_count: ReferralsCountByPeriod


class TopReferralItem(NamedUser):
    full_name: str
    created_at: datetime
    has_made_first_topup: bool
    is_active: bool
    total_earnings_kopeks: int


class TopReferralsResponse(BaseModel):
    items: list[TopReferralItem]
    user_id: int


class PeriodData(BaseModel):
    days: int
    start: str
    end: str
    referrals_count: int
    earnings_kopeks: int


class ChangeData(BaseModel):
    absolute: int
    percent: float
    trend: str


class WebPeriodChange(BaseModel):
    referrals: ChangeData
    earnings: ChangeData


class PeriodComparisonResponse(BaseModel):
    current_period: PeriodData
    previous_period: PeriodData
    change: WebPeriodChange
    user_id: int | None = None
