"""Wire models of the mini app's promo code, promo offer and device operations."""

from __future__ import annotations

from pydantic import BaseModel, Field

from subsvc_miniapp.schemas import MiniAppRequest


class MiniAppPromoCodeActivationRequest(MiniAppRequest):
    code: str = Field(max_length=50)
    subscription_id: int | None = None


class MiniAppPromoCode(BaseModel):
    code: str
    type: str | None = None
    balance_bonus_kopeks: int = 0
    subscription_days: int = 0
    max_uses: int | None = None
    current_uses: int | None = None
    valid_until: str | None = None


class MiniAppEligibleSubscription(BaseModel):
    id: int
    tariff_name: str | None = None
    days_left: int = 0


class MiniAppPromoCodeActivationResponse(BaseModel):
    success: bool = True
    description: str | None = None
    promocode: MiniAppPromoCode | None = None
    error: str | None = None
    eligible_subscriptions: list[MiniAppEligibleSubscription] | None = None
    code: str | None = None


class MiniAppPromoOfferClaimRequest(MiniAppRequest):
    """The init data only."""


class MiniAppPromoOfferClaimResponse(BaseModel):
    success: bool = True
    code: str | None = None


class MiniAppDeviceRemovalRequest(MiniAppRequest):
    hwid: str = Field(min_length=1, max_length=255)


class MiniAppDeviceRemovalResponse(BaseModel):
    success: bool = True
    message: str | None = None
