"""Wire models of the payments plugin: its answers and its event payloads."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field


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
