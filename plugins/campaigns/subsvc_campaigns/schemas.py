"""Wire shapes of the Web API ``/campaigns`` and of ``/cabinet/admin/campaigns``."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

BonusType = Literal["balance", "subscription", "none", "tariff"]
SLUG_PATTERN = r"^[a-zA-Z0-9_-]+$"
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
Slug = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
CabinetSlug = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=SLUG_PATTERN)]
NonNegative = Annotated[int, Field(ge=0)]
Positive = Annotated[int, Field(ge=1)]


def _check_bonus(fields: BaseModel) -> None:
    """The bonus type's own field must say something: a positive amount or days, a tariff."""
    bonus = getattr(fields, "bonus_type", None)
    if bonus == "balance" and not getattr(fields, "balance_bonus_kopeks", 0):
        raise ValueError("balance bonus requires a positive balance_bonus_kopeks")
    if bonus == "subscription" and not getattr(fields, "subscription_duration_days", None):
        raise ValueError("subscription bonus requires a positive subscription_duration_days")
    if bonus == "tariff" and not (
        getattr(fields, "tariff_id", None) and getattr(fields, "tariff_duration_days", None)
    ):
        raise ValueError("tariff bonus requires tariff_id and a positive tariff_duration_days")


# --- Web API -------------------------------------------------------------------------------------


class CampaignCreateRequest(BaseModel):
    """A new campaign (Web API)."""

    name: Name
    start_parameter: Slug
    bonus_type: BonusType
    balance_bonus_kopeks: NonNegative = 0
    subscription_duration_days: NonNegative | None = None
    subscription_traffic_gb: NonNegative | None = None
    subscription_device_limit: NonNegative | None = None
    subscription_squads: list[str] = Field(default_factory=list)
    tariff_id: Positive | None = None
    tariff_duration_days: Positive | None = None
    is_active: bool = True

    @model_validator(mode="after")
    def _bonus(self) -> CampaignCreateRequest:
        _check_bonus(self)
        return self


class CampaignUpdateRequest(BaseModel):
    """The fields to change (Web API); those not sent stay."""

    name: Name | None = None
    start_parameter: Slug | None = None
    bonus_type: BonusType | None = None
    balance_bonus_kopeks: NonNegative | None = None
    subscription_duration_days: NonNegative | None = None
    subscription_traffic_gb: NonNegative | None = None
    subscription_device_limit: NonNegative | None = None
    subscription_squads: list[str] | None = None
    tariff_id: Positive | None = None
    tariff_duration_days: Positive | None = None
    is_active: bool | None = None


class CampaignFields(BaseModel):
    """The columns every answer about a campaign starts with."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    start_parameter: str
    bonus_type: BonusType
    balance_bonus_kopeks: int = 0
    balance_bonus_rubles: float = 0.0
    subscription_duration_days: int | None = None
    subscription_traffic_gb: int | None = None
    subscription_device_limit: int | None = None
    subscription_squads: list[str] = Field(default_factory=list)
    tariff_id: int | None = None
    tariff_duration_days: int | None = None
    is_active: bool
    created_by: int | None = None
    created_at: datetime


class CampaignResponse(CampaignFields):
    """A campaign (Web API) with its registrations."""

    tariff_name: str | None = None
    updated_at: datetime
    registrations_count: int = 0


class CampaignListResponse(BaseModel):
    """A page of campaigns (Web API)."""

    items: list[CampaignResponse]
    total: int
    limit: int
    offset: int


# --- cabinet admin -------------------------------------------------------------------------------


class CabinetCampaignCreateRequest(BaseModel):
    """A new campaign (cabinet)."""

    name: Annotated[str, StringConstraints(min_length=1, max_length=255)]
    start_parameter: CabinetSlug
    bonus_type: BonusType
    is_active: bool = True
    balance_bonus_kopeks: NonNegative = 0
    subscription_duration_days: Positive | None = None
    subscription_traffic_gb: NonNegative | None = None
    subscription_device_limit: Positive | None = None
    subscription_squads: list[str] = Field(default_factory=list)
    tariff_id: int | None = None
    tariff_duration_days: Positive | None = None
    partner_user_id: int | None = None


class CabinetCampaignUpdateRequest(BaseModel):
    """The fields to change (cabinet); ``partner_user_id: null`` clears the partner."""

    name: Annotated[str, StringConstraints(min_length=1, max_length=255)] | None = None
    start_parameter: CabinetSlug | None = None
    bonus_type: BonusType | None = None
    is_active: bool | None = None
    balance_bonus_kopeks: NonNegative | None = None
    subscription_duration_days: Positive | None = None
    subscription_traffic_gb: NonNegative | None = None
    subscription_device_limit: Positive | None = None
    subscription_squads: list[str] | None = None
    tariff_id: int | None = None
    tariff_duration_days: Positive | None = None
    partner_user_id: int | None = None


class TariffInfo(BaseModel):
    """A campaign's tariff."""

    id: int
    name: str


class CampaignDetailResponse(CampaignFields):
    """A campaign (cabinet) with its tariff, partner and links."""

    tariff: TariffInfo | None = None
    partner_user_id: int | None = None
    partner_name: str | None = None
    updated_at: datetime | None = None
    deep_link: str | None = None
    web_link: str | None = None


class CampaignListItem(BaseModel):
    """A campaign in the cabinet's list."""

    id: int
    name: str
    start_parameter: str
    bonus_type: BonusType
    is_active: bool
    registrations_count: int
    total_revenue_kopeks: int = 0
    conversion_rate: float = 0.0
    partner_user_id: int | None = None
    partner_name: str | None = None
    created_at: datetime


class CabinetCampaignListResponse(BaseModel):
    """A page of campaigns (cabinet)."""

    campaigns: list[CampaignListItem]
    total: int


class CampaignsOverviewResponse(BaseModel):
    """Totals over every campaign."""

    total: int
    active: int
    inactive: int
    total_registrations: int
    total_balance_issued_kopeks: int
    total_balance_issued_rubles: float
    total_subscription_issued: int
    total_tariff_issued: int = 0


class CampaignStatisticsResponse(BaseModel):
    """One campaign's statistics."""

    id: int
    name: str
    start_parameter: str
    bonus_type: BonusType
    is_active: bool
    registrations: int = 0
    balance_issued_kopeks: int = 0
    balance_issued_rubles: float = 0.0
    subscription_issued: int = 0
    last_registration: datetime | None = None
    total_revenue_kopeks: int = 0
    total_revenue_rubles: float = 0.0
    avg_revenue_per_user_kopeks: int = 0
    avg_revenue_per_user_rubles: float = 0.0
    avg_first_payment_kopeks: int = 0
    avg_first_payment_rubles: float = 0.0
    trial_users_count: int = 0
    active_trials_count: int = 0
    conversion_count: int = 0
    paid_users_count: int = 0
    conversion_rate: float = 0.0
    trial_conversion_rate: float = 0.0
    deep_link: str | None = None
    web_link: str | None = None


class DailyStatItem(BaseModel):
    """One day's figures: registrations (or referees) and revenue (or earnings)."""

    date: str
    referrals_count: int = 0
    earnings_kopeks: int = 0


class PeriodStats(BaseModel):
    """A period's figures: registrations (or referees) and revenue (or earnings)."""

    days: int
    referrals_count: int = 0
    earnings_kopeks: int = 0


class PeriodChange(BaseModel):
    """Change between two periods."""

    absolute: int = 0
    percent: float = 0.0
    trend: str = "stable"

    @classmethod
    def between(cls, current: int, previous: int) -> PeriodChange:
        """``current - previous``, its percent of ``previous`` (100 from nothing to something), the trend."""
        diff = current - previous
        percent = round(diff / previous * 100, 2) if previous else (100.0 if current > 0 else 0.0)
        trend = "up" if diff > 0 else "down" if diff < 0 else "stable"
        return cls(absolute=diff, percent=percent, trend=trend)


class PeriodComparison(BaseModel):
    """The last days against as many before."""

    current: PeriodStats
    previous: PeriodStats
    referrals_change: PeriodChange
    earnings_change: PeriodChange

    @classmethod
    def of(cls, current: PeriodStats, previous: PeriodStats) -> PeriodComparison:
        """The two periods and the change of each figure."""
        return cls(
            current=current,
            previous=previous,
            referrals_change=PeriodChange.between(current.referrals_count, previous.referrals_count),
            earnings_change=PeriodChange.between(current.earnings_kopeks, previous.earnings_kopeks),
        )


class CampaignReferralItem(BaseModel):
    """A user a campaign brought, among those who brought the most."""

    id: int
    full_name: str
    created_at: datetime
    has_paid: bool = False
    is_active: bool = False
    total_earnings_kopeks: int = 0


class AdminCampaignChartDataResponse(BaseModel):
    """Chart series of a campaign."""

    campaign_id: int
    total_deposits_kopeks: int = 0
    total_spending_kopeks: int = 0
    daily_stats: list[DailyStatItem] = Field(default_factory=list)
    period_comparison: PeriodComparison
    top_registrations: list[CampaignReferralItem] = Field(default_factory=list)


class CampaignRegistrationItem(BaseModel):
    """A registration with its user's state."""

    id: int
    user_id: int
    messenger_id: int | None = None
    username: str | None = None
    first_name: str | None = None
    bonus_type: str
    balance_bonus_kopeks: int = 0
    subscription_duration_days: int | None = None
    tariff_id: int | None = None
    tariff_duration_days: int | None = None
    created_at: datetime
    user_balance_kopeks: int = 0
    has_subscription: bool = False
    has_paid: bool = False


class CampaignRegistrationsResponse(BaseModel):
    """A page of registrations."""

    registrations: list[CampaignRegistrationItem]
    total: int
    page: int
    per_page: int


class CampaignToggleResponse(BaseModel):
    """The campaign's new state."""

    id: int
    is_active: bool
    message: str


class ServerSquadInfo(BaseModel):
    """A squad a subscription bonus may give."""

    id: int
    squad_uuid: str
    display_name: str
    country_code: str | None = None


class TariffListItem(BaseModel):
    """An active tariff a tariff bonus may give."""

    id: int
    name: str
    description: str | None = None
    is_active: bool
    is_trial_available: bool
    is_daily: bool = False
    daily_price_kopeks: int = 0
    lava_product_id: str | None = None
    allow_traffic_topup: bool = True
    show_in_gift: bool = True
    traffic_limit_gb: int
    device_limit: int
    tier_level: int
    display_order: int
    servers_count: int
    subscriptions_count: int
    created_at: datetime


class AvailablePartnerItem(BaseModel):
    """A user a campaign may be assigned to."""

    user_id: int
    username: str | None = None
    first_name: str | None = None
