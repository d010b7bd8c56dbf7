"""The Apple IAP operations of release 4.1.0 (tag Cabinet Apple IAP): the user's account
token and purchase, support's search and reconciliation. Each answers 503 while Apple IAP is
not configured."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Query, Router
from subsvc.auth.principal import Principal
from subsvc_pay_apple_iap import admin, purchase, records
from subsvc_pay_apple_iap.schemas import (
    AppleAccountTokenResponse,
    ApplePurchaseRequest,
    ApplePurchaseResponse,
    AppleTransactionItem,
    AppleTransactionSearch,
    ReconcileReport,
)
from subsvc_pay_apple_iap.tokens import account_token

TAG = "Cabinet Apple IAP"
cabinet = Router(area="cabinet", tag=TAG)
support = Router(area="cabinet-admin", tag=TAG)
NOT_CONFIGURED = {503: "Apple In-App Purchase is not configured, or the database is down"}
APPLE_FAILED = {502: "Apple's API is down, refused our credentials, or answered data not signed by Apple"}


@cabinet.get("/cabinet/apple-iap/account-token", responses={503: "Apple In-App Purchase is not configured"})
async def apple_iap_account_token(request: Request, principal: Principal) -> AppleAccountTokenResponse:
    """Return the stable StoreKit appAccountToken UUID for the authenticated user."""
    settings = purchase.configured(request.app)
    return AppleAccountTokenResponse(app_account_token=account_token(settings, principal.id))


@cabinet.post(
    "/cabinet/apple-purchase",
    responses={
        400: "Unknown product, unknown transaction, or a transaction of another app or product, not "
        "consumable, or without an appAccountToken",
        409: "The transaction belongs to another account, or Apple revoked it",
        **APPLE_FAILED,
        **NOT_CONFIGURED,
    },
)
async def apple_purchase(
    request: Request, session: AsyncSession, principal: Principal, payload: ApplePurchaseRequest
) -> ApplePurchaseResponse:
    """Verify an Apple consumable transaction and credit the user's internal balance."""
    await purchase.purchase(request.app, session, principal.id, payload.product_id, payload.transaction_id)
    return ApplePurchaseResponse(success=True)


@support.get("/cabinet/admin/apple-iap/transactions", permission="payments:read", responses=NOT_CONFIGURED)
async def search_apple_iap_transactions(
    request: Request,
    session: AsyncSession,
    q: Annotated[str, Query(min_length=1, max_length=128)],
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> AppleTransactionSearch:
    """Support lookup for Apple IAP ledger entries."""
    purchase.configured(request.app)
    found = await records.search(session, q, limit)
    return AppleTransactionSearch(
        items=[AppleTransactionItem.model_validate(row, from_attributes=True) for row in found]
    )


@support.post(
    "/cabinet/admin/apple-iap/reconcile",
    permission="payments:edit",
    responses={**APPLE_FAILED, **NOT_CONFIGURED},
)
async def reconcile_apple_iap_transactions(
    request: Request, limit: Annotated[int, Query(ge=1, le=500)] = 100
) -> ReconcileReport:
    """Reconcile recent Apple IAP transactions against Apple's API."""
    return await admin.reconcile(request.app, purchase.configured(request.app), limit)
