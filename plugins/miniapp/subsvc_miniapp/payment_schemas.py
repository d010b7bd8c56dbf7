"""Wire models of the mini app's payment operations (the contract's names and spelling)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from subsvc.api import INT64_MAX, BigInt
from subsvc_miniapp.schemas import MiniAppRequest

ProviderId = Field(None, max_length=255)


class MiniAppPaymentMethodsRequest(MiniAppRequest):
    """The init data only."""


class MiniAppPaymentOption(BaseModel):
    id: str
    icon: str | None = None
    title: str | None = None
    description: str | None = None
    titleKey: str | None = None
    descriptionKey: str | None = None


class MiniAppPaymentIframeConfig(BaseModel):
    expected_origin: str


class MiniAppPaymentMethod(BaseModel):
    id: str
    name: str | None = None
    icon: str | None = None
    requires_amount: bool = False
    currency: str = "RUB"
    min_amount_kopeks: int | None = None
    max_amount_kopeks: int | None = None
    amount_step_kopeks: int | None = None
    integration_type: Literal["iframe", "redirect"]
    options: list[MiniAppPaymentOption] = Field(default_factory=list)
    iframe_config: MiniAppPaymentIframeConfig | None = None


class MiniAppPaymentMethodsResponse(BaseModel):
    methods: list[MiniAppPaymentMethod] = Field(default_factory=list)


class MiniAppPaymentCreateRequest(MiniAppRequest):
    method: str = Field(max_length=50)
    amountRubles: float | None = Field(None, allow_inf_nan=False, le=INT64_MAX / 100)
    amountKopeks: BigInt | None = None
    option: str | None = Field(None, max_length=50)


class MiniAppPaymentCreateResponse(BaseModel):
    success: bool = True
    method: str
    payment_url: str | None = None
    amount_kopeks: int | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class MiniAppPaymentStatusQuery(BaseModel):
    method: str = Field(max_length=50)
    localPaymentId: int | None = None
    paymentLinkId: str | None = ProviderId
    invoiceId: str | None = ProviderId
    paymentId: str | None = ProviderId
    payload: str | None = ProviderId
    amountKopeks: BigInt | None = None
    startedAt: str | None = Field(None, max_length=64)


class MiniAppPaymentStatusRequest(MiniAppRequest):
    payments: list[MiniAppPaymentStatusQuery] = Field(default_factory=list, max_length=50)


class MiniAppPaymentStatusResult(BaseModel):
    method: str
    status: str
    is_paid: bool = False
    amount_kopeks: int | None = None
    currency: str | None = None
    completed_at: str | None = None
    transaction_id: int | None = None
    external_id: str | None = None
    message: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class MiniAppPaymentStatusResponse(BaseModel):
    results: list[MiniAppPaymentStatusResult] = Field(default_factory=list)
