"""Wire models of the Apple IAP operations (release 4.1.0's shapes) and the event payload."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class AppleAccountTokenResponse(BaseModel):
    """Stable StoreKit appAccountToken for the authenticated user."""

    app_account_token: str


class ApplePurchaseRequest(BaseModel):
    """Request to verify and credit an Apple IAP transaction."""

    product_id: str = Field(
        max_length=255, description="Apple product ID (e.g. com.bitnet.vpnclient.topup.100)"
    )
    transaction_id: str = Field(min_length=1, max_length=64, description="Apple StoreKit transaction ID")


class ApplePurchaseResponse(BaseModel):
    """Response indicating whether the purchase was successfully credited."""

    success: bool


class AppleTransactionItem(BaseModel):
    """An Apple transaction credited here, as the support search shows it."""

    id: int
    payment_id: int
    user_id: int
    transaction_id: str
    original_transaction_id: str
    product_id: str
    amount_kopeks: int
    price: int | None
    currency: str | None
    environment: str
    status: str
    purchased_at: datetime | None
    revoked_at: datetime | None
    revocation_reason: int | None
    consumption_requested_at: datetime | None
    reconciled_at: datetime | None
    drift: str | None
    created_at: datetime


class AppleTransactionSearch(BaseModel):
    """The transactions found, newest first."""

    items: list[AppleTransactionItem]


class ReconcileDifference(BaseModel):
    """A transaction whose state at Apple differs from ours."""

    transaction_id: str
    user_id: int
    differences: list[str]


class ReconcileReport(BaseModel):
    """What a reconciliation found: transactions asked, those that differ, revocations no
    notification had told us (``notification_backlog``), and each difference."""

    checked: int
    drift_count: int
    notification_backlog: int
    revoked: list[str]
    differences: list[ReconcileDifference]


class TransactionRevoked(BaseModel):
    """An Apple transaction credited here was revoked (refunded) by Apple: nothing is taken
    back from the balance automatically."""

    transaction_id: str
    original_transaction_id: str
    payment_id: int
    user_id: int
    amount_kopeks: int
    revoked_at: datetime
    revocation_reason: int | None
    source: str = Field(description="`notification` (Apple told us) or `reconcile` (we asked Apple)")
    occurred_at: datetime
