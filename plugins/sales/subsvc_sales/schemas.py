"""The selling operations' wire models (field names as the cabinet's clients read them)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from subsvc_cabinet.api import SubscriptionData

YandexCid = Annotated[
    str | None,
    Field(
        max_length=128,
        pattern=r"^[A-Za-z0-9._:-]{4,128}$",
        description="Cached Yandex.Metrika ClientID (optional).",
    ),
]


class PurchaseSelectionRequest(BaseModel):
    """User's selection for subscription purchase."""

    period_id: str | None = Field(None, description="Period ID like 'days:30'")
    period_days: int | None = Field(None, ge=1, le=3650, description="Period in days")
    traffic_value: int | None = Field(None, ge=0, le=100000, description="Traffic in GB (0 = unlimited)")
    servers: list[str] | None = Field(None, description="Server UUIDs")
    devices: int | None = Field(None, ge=1, le=100, description="Device limit")


class PurchasePreviewRequest(BaseModel):
    """Request to preview purchase pricing."""

    selection: PurchaseSelectionRequest
    yandex_cid: YandexCid = None


class TariffPurchaseRequest(BaseModel):
    """Request to purchase a tariff."""

    tariff_id: int = Field(description="Tariff ID to purchase")
    period_days: int = Field(ge=1, le=3650, description="Period in days")
    traffic_gb: int | None = Field(
        None, ge=0, le=100000, description="Custom traffic in GB (for custom_traffic_enabled tariffs)"
    )
    subscription_id: int | None = Field(
        None, ge=1, description="Existing subscription_id when renewing (multi-tariff)."
    )
    yandex_cid: YandexCid = None


class TrialActivateRequest(BaseModel):
    """Optional body of ``POST /trial`` (all fields optional)."""

    yandex_cid: YandexCid = None


class TrialInfoResponse(BaseModel):
    """Trial subscription info."""

    is_available: bool
    duration_days: int
    traffic_limit_gb: int
    device_limit: int
    requires_payment: bool = False
    price_kopeks: int = 0
    price_rubles: float = 0.0
    reason_unavailable: str | None = None


class Open(BaseModel):
    """An answer the contract leaves open (an object with any fields): ours are listed, more
    may come."""

    model_config = ConfigDict(extra="allow")


class PurchaseTariffResponse(Open):
    """A tariff bought from the balance."""

    success: bool = True
    message: str
    subscription: SubscriptionData
    tariff_id: int
    tariff_name: str
    charged_amount: int
    charged_label: str
    balance_kopeks: int
    balance_label: str
    original_price_kopeks: int
    discount_percent: int = 0
    discount_kopeks: int = 0
    promo_offer_discount_percent: int = 0
    promo_offer_discount_kopeks: int = 0


class PurchaseResponse(Open):
    """A classic subscription bought from the balance."""

    success: bool = True
    message: str
    subscription: SubscriptionData
    was_trial_conversion: bool
    charged_amount: int
    balance_kopeks: int


class PeriodOption(BaseModel):
    """A period on offer at the buyer's price."""

    id: str
    days: int
    months: int
    label: str
    price_kopeks: int
    price_label: str
    price_per_month_kopeks: int
    price_per_month_label: str
    original_price_kopeks: int | None = None
    original_price_label: str | None = None
    discount_percent: int | None = None


class TariffOption(BaseModel):
    """A tariff the user may buy, with its periods at their price."""

    id: int
    name: str
    description: str | None
    tier_level: int
    traffic_limit_gb: int
    traffic_limit_label: str
    is_unlimited_traffic: bool
    device_limit: int
    device_price_kopeks: int | None
    max_device_limit: int | None
    servers_count: int
    is_daily: bool
    daily_price_kopeks: int
    custom_days_enabled: bool
    price_per_day_kopeks: int
    min_days: int
    max_days: int
    custom_traffic_enabled: bool
    traffic_price_per_gb_kopeks: int
    min_traffic_gb: int
    max_traffic_gb: int
    periods: list[PeriodOption]
    is_current: bool
    is_purchased: bool
    is_available: bool = True


class TariffsPurchaseOptions(Open):
    """``GET /purchase-options`` in tariffs mode."""

    sales_mode: Literal["tariffs"] = "tariffs"
    tariffs: list[TariffOption]
    current_tariff_id: int | None
    balance_kopeks: int
    balance_label: str
    subscription_status: str | None
    subscription_is_expired: bool
    subscription_on_free_tariff: bool
    has_subscription: bool
    all_tariffs_purchased: bool
    tariff_switch_upgrade_enabled: bool = True
    tariff_switch_downgrade_enabled: bool = True
    platega_recurrent_enabled: bool = False
    lava_recurrent_enabled: bool = False


class ClassicPurchaseOptions(Open):
    """``GET /purchase-options`` in classic mode: what can be selected and at what price."""

    sales_mode: Literal["classic"] = "classic"
    currency: str = "RUB"
    balance_kopeks: int
    balance_label: str
    subscription_id: int | None
    periods: list[PeriodOption]
    traffic: dict[str, Any]
    servers: dict[str, Any]
    devices: dict[str, Any]
    selection: dict[str, Any]


class PreviewLine(BaseModel):
    kind: str
    original_kopeks: int
    discount_percent: int
    price_kopeks: int


class PurchasePreview(Open):
    """``POST /purchase-preview``: the classic selection priced."""

    total_price_kopeks: int
    total_price_label: str
    original_price_kopeks: int
    original_price_label: str
    discount_percent: int
    discount_kopeks: int
    per_month_price_kopeks: int
    per_month_price_label: str
    breakdown: list[PreviewLine]
    balance_kopeks: int
    balance_label: str
    missing_amount_kopeks: int
    can_purchase: bool
    status_message: str | None
    selection: dict[str, Any]
