"""The cabinet's balance payments (tag Cabinet Balance): the provider plugins' methods, the
top-up, and the user's pending payments and their check."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Query, Router, from_attributes
from subsvc.auth.principal import Principal
from subsvc_payments import pending, topup
from subsvc_payments.methods import Method, user_methods
from subsvc_payments.schemas import (
    IdempotencyKey,
    ManualCheckResponse,
    PaymentMethodResponse,
    PendingPaymentListResponse,
    PendingPaymentResponse,
    TopUpRequest,
    TopUpResponse,
)

balance = Router(area="cabinet", tag="Cabinet Balance")
PROVIDER_FAILED = "The payment provider is down or refused (the payment is left `failed`)"


def _response(method: Method) -> PaymentMethodResponse:
    low, high = method.limits
    return from_attributes(PaymentMethodResponse, method, min_amount_kopeks=low, max_amount_kopeks=high)


@balance.get("/cabinet/balance/payment-methods")
async def get_payment_methods(
    request: Request, session: AsyncSession, principal: Principal
) -> list[PaymentMethodResponse]:
    """Payment methods available to the user, in the administrators' order: those of the
    configured provider plugins that are enabled and whose filters (account type, first
    top-up, promo group) let the user through, with the administrators' names, limits,
    options and quick amounts (an empty list while no provider is installed or configured)."""
    methods = await user_methods(request.app, session, principal.id)
    return [_response(method) for method in methods]


@balance.post(
    "/cabinet/balance/topup",
    responses={
        400: f"{topup.INVALID_METHOD}, an invalid option, or the amount outside the method's limits",
        409: "The Idempotency-Key was used for another top-up, or its first request is still running",
        502: PROVIDER_FAILED,
    },
)
async def create_topup(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: TopUpRequest,
    idempotency_key: IdempotencyKey = None,
) -> TopUpResponse:
    """Create a payment at the method's provider and answer the URL the payer confirms at.

    With an `Idempotency-Key`, a repeat answers the first payment (409 when it asked for
    another method or amount). A provider that fails leaves the payment `failed`: 502."""
    return await topup.create_topup(request.app, session, principal.id, payload, idempotency_key)


@balance.get("/cabinet/balance/pending-payments")
async def get_pending_payments(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    page: Annotated[int, Query(ge=1, description="Page number")] = 1,
    per_page: Annotated[int, Query(ge=1, le=50, description="Items per page")] = 10,
) -> PendingPaymentListResponse:
    """The user's pending payments, newest first."""
    return await pending.pending_page(request.app, session, principal.id, page, per_page)


@balance.get("/cabinet/balance/pending-payments/{method}/latest", responses={404: pending.NO_RECENT})
async def get_latest_payment_by_method(
    request: Request, session: AsyncSession, principal: Principal, method: str
) -> PendingPaymentResponse:
    """The user's newest payment of the method, whatever its status."""
    return await pending.latest(request.app, session, principal.id, method)


@balance.get(
    "/cabinet/balance/pending-payments/{method}/{payment_id}",
    responses={404: f"{pending.PAYMENT_NOT_FOUND} (unknown, of another method or another user's)"},
)
async def get_pending_payment_details(
    request: Request, session: AsyncSession, principal: Principal, method: str, payment_id: int
) -> PendingPaymentResponse:
    """One of the user's payments."""
    return await pending.details(request.app, session, principal.id, method, payment_id)


@balance.post(
    "/cabinet/balance/pending-payments/{method}/{payment_id}/check",
    responses={
        404: f"{pending.PAYMENT_NOT_FOUND} (unknown, of another method or another user's)",
        502: PROVIDER_FAILED.split(" (")[0],
    },
)
async def check_payment_status(
    request: Request, session: AsyncSession, principal: Principal, method: str, payment_id: int
) -> ManualCheckResponse:
    """Ask the provider for the payment's status: paid credits the balance (once, however many
    checks and notifications race), an unpaid end marks it so. A payment not pending (or
    expired here), or whose provider is not configured, is answered `success: false`."""
    return await pending.check(request.app, session, principal.id, method, payment_id)
