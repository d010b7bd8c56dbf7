"""Wire models of the payments plugin: its answers and its event payloads."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, Field

from subsvc.api import Header

IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=128,
        description="Repeated: the first top-up is answered, no second payment is made",
    ),
]
"""The optional header ``Idempotency-Key`` of an endpoint creating a payment (``= None``)."""


class PaymentEvent(BaseModel):
    """``payment.succeeded`` (credited) and ``payment.failed`` (ended unpaid, or a paid amount
    refused): the payment as it is after the change."""

    payment_id: int
    user_id: int
    provider: str
    method: str
    provider_payment_id: str | None
    status: str
    amount_kopeks: int
    paid_amount_kopeks: int | None
    currency: str
    transaction_id: int | None
    flagged_late: bool
    failure_reason: str | None
    occurred_at: datetime


class BalanceToppedUp(BaseModel):
    """``balance.topped_up``: a payment credited a user's balance."""

    user_id: int
    payment_id: int
    provider: str
    transaction_id: int
    amount_kopeks: int
    new_balance_kopeks: int
    flagged_late: bool
    occurred_at: datetime


class PaymentMethodResponse(BaseModel):
    """Available payment method."""

    id: str
    name: str
    description: str | None = None
    min_amount_kopeks: int
    max_amount_kopeks: int
    is_available: bool = True
    options: list[dict[str, Any]] | None = None
    quick_amounts: list[int] = Field(default_factory=list)
    open_url_direct: bool = False


class TopUpRequest(BaseModel):
    """Request to create payment for balance top-up."""

    amount_kopeks: int = Field(ge=1000, le=2_000_000_000, description="Amount in kopeks (min 10 rubles)")
    payment_method: str = Field(description="Payment method ID")
    payment_option: str | None = Field(None, description="Payment option (e.g. Platega method code)")


class TopUpResponse(BaseModel):
    """Response with payment info."""

    payment_id: str
    payment_url: str
    amount_kopeks: int
    amount_rubles: float
    status: str
    expires_at: datetime | None = None


class PendingPaymentResponse(BaseModel):
    """Pending payment details for manual verification."""

    id: int
    method: str
    method_display: str
    identifier: str
    amount_kopeks: int
    amount_rubles: float
    status: str
    status_emoji: str
    status_text: str
    is_paid: bool
    is_checkable: bool
    created_at: datetime
    expires_at: datetime | None = None
    payment_url: str | None = None
    user_id: int | None = None
    user_messenger_id: int | None = None
    user_username: str | None = None


class PendingPaymentListResponse(BaseModel):
    """Paginated list of pending payments."""

    items: list[PendingPaymentResponse]
    total: int
    page: int
    per_page: int
    pages: int


class ManualCheckResponse(BaseModel):
    """Response after manual payment status check."""

    success: bool
    message: str
    payment: PendingPaymentResponse | None = None
    status_changed: bool = False
    old_status: str | None = None
    new_status: str | None = None
