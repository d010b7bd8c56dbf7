"""Wire models of the mini app's renewal, tariff switch and daily pause operations (the
contract's names and spelling; the switch and the pause answer the renewals plugin's models,
the contract leaves their shape open)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from subsvc_miniapp.dashboard_schemas import MiniAppPromoGroup, MiniAppSubscriptionAutopay
from subsvc_miniapp.schemas import MiniAppRequest, MiniAppSnakeRequest


class MiniAppSubscriptionRenewalOptionsRequest(MiniAppRequest):
    subscriptionId: int | None = None


class MiniAppSubscriptionRenewalPeriod(BaseModel):
    id: str
    days: int | None = None
    months: int | None = None
    priceKopeks: int | None = None
    priceLabel: str | None = None
    originalPriceKopeks: int | None = None
    originalPriceLabel: str | None = None
    discountPercent: int = 0
    pricePerMonthKopeks: int | None = None
    pricePerMonthLabel: str | None = None
    isRecommended: bool = False
    description: str | None = None
    badge: str | None = None
    title: str | None = None


class MiniAppSubscriptionRenewalOptionsResponse(BaseModel):
    success: bool = True
    subscriptionId: int | None = None
    currency: str
    balanceKopeks: int | None = None
    balanceLabel: str | None = None
    promoGroup: MiniAppPromoGroup | None = None
    promoOffer: dict[str, Any] | None = None
    periods: list[MiniAppSubscriptionRenewalPeriod] = Field(default_factory=list)
    defaultPeriodId: str | None = None
    missingAmountKopeks: int | None = None
    statusMessage: str | None = None
    autopay_enabled: bool = False
    autopay_days_before: int | None = None
    autopay_days_options: list[int] = Field(default_factory=list)
    autopay: MiniAppSubscriptionAutopay | None = None
    autopay_settings: MiniAppSubscriptionAutopay | None = None
    isTrial: bool = False
    salesMode: str = "classic"


class MiniAppSubscriptionRenewalRequest(MiniAppRequest):
    subscriptionId: int | None = None
    periodId: str | None = Field(None, max_length=32)
    periodDays: int | None = None
    method: str | None = Field(None, max_length=50)


class MiniAppSubscriptionRenewalResponse(BaseModel):
    success: bool = True
    message: str | None = None
    balanceKopeks: int | None = None
    balanceLabel: str | None = None
    subscriptionId: int | None = None
    renewedUntil: str | None = None
    requiresPayment: bool = False
    paymentMethod: str | None = None
    paymentUrl: str | None = None
    paymentAmountKopeks: int | None = None
    paymentId: int | None = None
    invoiceId: str | None = None
    paymentPayload: str | None = None
    paymentExtra: dict[str, Any] | None = None


class MiniAppTariffSwitchRequest(MiniAppSnakeRequest):
    tariff_id: int
    subscriptionId: int | None = None


class MiniAppDailySubscriptionToggleRequest(MiniAppSnakeRequest):
    subscriptionId: int | None = None
