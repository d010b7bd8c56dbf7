"""The wire shapes of the renewal operations (the reference's, 3.36.0 and 4.1.0) and the
payloads of the events the plugin publishes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field
from subsvc_cabinet.api import SubscriptionData

YandexCid = Annotated[str, Field(max_length=128, pattern=r"^[A-Za-z0-9._:-]{4,128}$")]


class RenewalOptionResponse(BaseModel):
    """Available subscription renewal option."""

    period_days: int
    price_kopeks: int
    price_rubles: float
    discount_percent: int = 0
    original_price_kopeks: int | None = None


class RenewalRequest(BaseModel):
    """Request to renew subscription."""

    period_days: int = Field(ge=1, le=3650, description="Renewal period in days")
    subscription_id: int | None = Field(
        None, description="ID of subscription to renew (required in multi-tariff mode)"
    )
    yandex_cid: YandexCid | None = None


class RenewalResponse(BaseModel):
    """A renewal paid from the balance: the new end and what it cost (the personal discount's
    share when one was used)."""

    message: str
    new_end_date: datetime
    amount_paid_kopeks: int
    promo_discount_percent: int | None = None
    promo_discount_amount_kopeks: int | None = None
    original_price_kopeks: int | None = None


class AutopayUpdateRequest(BaseModel):
    """Request to update autopay settings."""

    enabled: bool
    days_before: int | None = Field(None, ge=1, le=30, description="Days before expiration to charge")


class AutopayResponse(BaseModel):
    """The subscription's autopay as it now is."""

    message: str
    autopay_enabled: bool
    autopay_days_before: int | None


class PauseResponse(BaseModel):
    """A daily subscription paused or resumed, and the balance after it."""

    model_config = ConfigDict(extra="allow")

    success: bool
    message: str
    is_paused: bool
    balance_kopeks: int
    balance_label: str


class TariffSwitchRequest(BaseModel):
    """Request to purchase a tariff (here: to switch to it; ``period_days`` and ``traffic_gb``
    are the contract's, the switch does not use them)."""

    tariff_id: int = Field(description="Tariff ID to purchase")
    period_days: int = Field(ge=1, le=3650, description="Period in days")
    traffic_gb: int | None = Field(
        None, ge=0, le=100000, description="Custom traffic in GB (for custom_traffic_enabled tariffs)"
    )
    subscription_id: int | None = Field(
        None,
        ge=1,
        description="Existing subscription_id when renewing (multi-tariff). Resolves race with concurrent "
        "panel webhooks.",
    )
    yandex_cid: YandexCid | None = Field(None, description="Cached Yandex.Metrika ClientID (optional).")


class SwitchPreview(BaseModel):
    """What a switch would cost now (the reference's fields), and what it does to the extra
    devices bought on the old tariff (carried up to the new cap, the rest refunded)."""

    can_switch: bool
    current_tariff_id: int
    current_tariff_name: str
    new_tariff_id: int
    new_tariff_name: str
    remaining_days: int
    upgrade_cost_kopeks: int
    upgrade_cost_label: str
    balance_kopeks: int
    balance_label: str
    has_enough_balance: bool
    missing_amount_kopeks: int
    missing_amount_label: str
    is_upgrade: bool
    discount_percent: int | None = None
    discount_kopeks: int | None = None
    base_upgrade_cost_kopeks: int | None = None
    new_device_limit: int
    devices_carried: int
    devices_dropped: int
    refund_kopeks: int


class SwitchResult(BaseModel):
    """A switch made: the subscription as it now is, what was charged and refunded."""

    success: bool
    message: str
    subscription: SubscriptionData
    old_tariff_name: str
    new_tariff_id: int
    new_tariff_name: str
    charged_kopeks: int
    balance_kopeks: int
    balance_label: str
    discount_percent: int | None = None
    discount_kopeks: int | None = None
    devices_carried: int
    devices_dropped: int
    refund_kopeks: int


RenewalSource = Literal["cabinet", "cart", "autopay", "daily", "resume"]


class SubscriptionRenewed(BaseModel):
    """``subscription.renewed``: a subscription paid for more time from the balance."""

    subscription_id: int
    user_id: int
    source: RenewalSource
    days: int
    amount_kopeks: int
    new_end_date: datetime
    transaction_id: int | None
    occurred_at: datetime


class SubscriptionExpired(BaseModel):
    """``subscription.expired``: a subscription whose end came was marked expired."""

    subscription_id: int
    user_id: int
    end_date: datetime
    is_trial: bool
    tariff_id: int | None
    occurred_at: datetime


class AutopayFailed(BaseModel):
    """``subscription.autopay_failed``: autopay (or a daily tariff's charge) could not renew
    from the balance; a daily subscription is disabled with it."""

    subscription_id: int
    user_id: int
    reason: Literal["insufficient_funds", "not_renewable"]
    daily: bool
    required_kopeks: int
    balance_kopeks: int
    occurred_at: datetime
