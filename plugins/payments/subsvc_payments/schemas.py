"""Event payloads of the payments plugin."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel


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
