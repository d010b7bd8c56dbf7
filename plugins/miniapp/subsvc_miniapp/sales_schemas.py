"""Wire models of the mini app's trial, classic purchase and tariff purchase operations (the
contract's names and spelling; the sales plugin's answers are mapped onto them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from subsvc_miniapp.dashboard_schemas import (
    MiniAppConnectedServer,
    MiniAppCurrentTariff,
    MiniAppPromoGroup,
    MiniAppTariffFacts,
)
from subsvc_miniapp.schemas import MiniAppRequest


class MiniAppSubscriptionTrialRequest(MiniAppRequest):
    """The init data only."""


class MiniAppSubscriptionTrialResponse(BaseModel):
    success: bool = True
    message: str | None = None
    subscriptionId: int | None = None
    trialStatus: str | None = None
    trialDurationDays: int | None = None
    chargedAmountKopeks: int | None = None
    chargedAmountLabel: str | None = None
    balanceKopeks: int | None = None
    balanceLabel: str | None = None


class MiniAppSubscriptionPurchaseOptionsRequest(MiniAppRequest):
    """The init data only."""


class MiniAppSubscriptionPurchaseOptionsResponse(BaseModel):
    success: bool = True
    currency: str
    balanceKopeks: int | None = None
    balanceLabel: str | None = None
    subscriptionId: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class MiniAppSubscriptionPurchasePreviewRequest(MiniAppRequest):
    """A classic selection: ``selection`` (the cabinet's names, or these) and/or the fields;
    a field given outside ``selection`` wins."""

    subscriptionId: int | None = None
    selection: dict[str, Any] | None = None
    periodId: str | None = None
    periodDays: int | None = None
    period: str | None = None
    trafficValue: int | None = None
    traffic: int | None = None
    trafficGb: int | None = None
    servers: list[str] | None = None
    countries: list[str] | None = None
    serverUuids: list[str] | None = None
    devices: int | None = None
    deviceLimit: int | None = None


class MiniAppSubscriptionPurchasePreviewResponse(BaseModel):
    success: bool = True
    preview: dict[str, Any] = Field(default_factory=dict)
    balanceKopeks: int | None = None
    balanceLabel: str | None = None


class MiniAppSubscriptionPurchaseRequest(MiniAppSubscriptionPurchasePreviewRequest):
    """The selection to buy (as the preview's)."""


class MiniAppSubscriptionPurchaseResponse(BaseModel):
    success: bool = True
    message: str | None = None
    balanceKopeks: int | None = None
    balanceLabel: str | None = None
    subscriptionId: int | None = None


class MiniAppTariffsRequest(MiniAppRequest):
    """The init data only."""


class MiniAppTariffPeriod(BaseModel):
    days: int
    months: int | None = None
    label: str
    price_kopeks: int
    price_label: str
    price_per_month_kopeks: int | None = None
    price_per_month_label: str | None = None
    original_price_kopeks: int | None = None
    original_price_label: str | None = None
    discount_percent: int = 0


class MiniAppTariff(MiniAppTariffFacts):
    servers: list[MiniAppConnectedServer] = Field(default_factory=list)
    periods: list[MiniAppTariffPeriod] = Field(default_factory=list)
    is_current: bool = False
    is_available: bool = True
    switch_cost_kopeks: int | None = None
    switch_cost_label: str | None = None
    is_upgrade: bool | None = None
    is_switch_free: bool | None = None
    is_daily: bool = False
    daily_price_kopeks: int = 0
    daily_price_label: str | None = None


class MiniAppTariffsResponse(BaseModel):
    success: bool = True
    sales_mode: str = "tariffs"
    tariffs: list[MiniAppTariff] = Field(default_factory=list)
    current_tariff: MiniAppCurrentTariff | None = None
    balance_kopeks: int = 0
    balance_label: str | None = None
    promo_group: MiniAppPromoGroup | None = None


class MiniAppTariffPurchaseRequest(MiniAppRequest):
    tariffId: int
    periodDays: int


class MiniAppTariffPurchaseResponse(BaseModel):
    success: bool = True
    message: str | None = None
    subscription_id: int | None = None
    tariff_id: int | None = None
    tariff_name: str | None = None
    new_end_date: datetime | None = None
    balance_kopeks: int | None = None
    balance_label: str | None = None
