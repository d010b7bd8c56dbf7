"""The users wire contract: the user record and its summaries."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, computed_field


class PromoGroupSummary(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    server_discount_percent: int
    traffic_discount_percent: int
    device_discount_percent: int
    apply_discounts_to_addons: bool = True


class SubscriptionSummary(BaseModel):
    """A subscription as the user record shows it (filled by the subscriptions plugin)."""

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
    tariff_id: int | None = None
    tariff_name: str | None = None


class UserResponse(BaseModel):
    """The user record: the row, its promo group, and what other plugins add through the
    ``user_record_extras`` hook (``subscription`` and ``subscriptions``)."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    messenger_id: int | None = None
    email: str | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None
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
