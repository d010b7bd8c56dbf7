"""``/miniapp/payments/...``: the cabinet's top-up for the mini app (payments' public API):
the methods the user may pay with, a payment created at one, and the status of the user's
own payments. Refusals in the text style (``{"detail": "..."}``)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from sqlalchemy import or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_payments.api import (
    SUCCEEDED,
    IdempotencyKey,
    Method,
    Payment,
    TopUpRequest,
    create_topup,
    user_methods,
)
from subsvc_users.api import User

from subsvc.api import HTTPError, Router
from subsvc_miniapp import auth
from subsvc_miniapp.payment_schemas import (
    MiniAppPaymentCreateRequest,
    MiniAppPaymentCreateResponse,
    MiniAppPaymentMethod,
    MiniAppPaymentMethodsRequest,
    MiniAppPaymentMethodsResponse,
    MiniAppPaymentOption,
    MiniAppPaymentStatusQuery,
    MiniAppPaymentStatusRequest,
    MiniAppPaymentStatusResponse,
    MiniAppPaymentStatusResult,
)

router = Router(area="web", tag="miniapp")
METHOD_REQUIRED = "Payment method is required"
NOT_POSITIVE = "Amount must be positive"
TOO_SMALL = "Amount is below minimum"
TOO_LARGE = "Amount exceeds maximum"
TOPUP_BOUNDS_KOPEKS = (1000, 2_000_000_000)  # what the cabinet's top-up request takes at all


def _method(method: Method) -> MiniAppPaymentMethod:
    low, high = method.limits
    options = [
        MiniAppPaymentOption(
            id=str(option.get("id")), title=option.get("name"), description=option.get("description")
        )
        for option in method.options or ()
    ]
    return MiniAppPaymentMethod(
        id=method.id,
        name=method.name,
        requires_amount=True,
        min_amount_kopeks=low,
        max_amount_kopeks=high,
        integration_type="redirect",
        options=options,
    )


@router.post("/miniapp/payments/methods", public=True, responses=auth.USER_RESPONSES)
async def get_payment_methods(
    request: Request, session: AsyncSession, body: MiniAppPaymentMethodsRequest
) -> MiniAppPaymentMethodsResponse:
    """The methods the user may top up with, as the cabinet lists them (the administrators'
    order, names, limits and options); every one opens the provider's page (`redirect`)."""
    user = await auth.user_of(request.app, session, body.initData, "text")
    assert user.id is not None
    return MiniAppPaymentMethodsResponse(
        methods=[_method(method) for method in await user_methods(request.app, session, user.id)]
    )


def _amount(body: MiniAppPaymentCreateRequest) -> int:
    """The amount asked in kopeks: ``amountKopeks`` wins, else the rubles rounded half up."""
    if body.amountKopeks is not None:
        return body.amountKopeks
    if body.amountRubles is None:
        raise HTTPError(400, NOT_POSITIVE)
    return int((Decimal(str(body.amountRubles)) * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))


@router.post(
    "/miniapp/payments/create",
    public=True,
    responses={
        **auth.USER_RESPONSES,
        400: f"`{METHOD_REQUIRED}`, `{NOT_POSITIVE}`, `{TOO_SMALL}`, `{TOO_LARGE}`, or the cabinet "
        "top-up's refusals (an unavailable method or option, the method's limits)",
        409: "The Idempotency-Key was used for another top-up, or its first request is still running",
        502: "The payment provider is down or refused (the payment is left `failed`)",
    },
)
async def create_payment_link(
    request: Request,
    session: AsyncSession,
    body: MiniAppPaymentCreateRequest,
    idempotency_key: IdempotencyKey = None,
) -> MiniAppPaymentCreateResponse:
    """Create a top-up payment at the method's provider (the cabinet's top-up: same methods,
    limits and refusals) and answer the URL to pay at. An `Idempotency-Key` makes a repeat
    answer the first payment instead of making a second."""
    user = await auth.user_of(request.app, session, body.initData, "text")
    assert user.id is not None
    if not body.method.strip():
        raise HTTPError(400, METHOD_REQUIRED)
    amount = _amount(body)
    if amount <= 0:
        raise HTTPError(400, NOT_POSITIVE)
    if amount < TOPUP_BOUNDS_KOPEKS[0]:
        raise HTTPError(400, TOO_SMALL)
    if amount > TOPUP_BOUNDS_KOPEKS[1]:
        raise HTTPError(400, TOO_LARGE)
    topup = TopUpRequest(amount_kopeks=amount, payment_method=body.method, payment_option=body.option)
    created = await create_topup(request.app, session, user.id, topup, idempotency_key)
    return MiniAppPaymentCreateResponse(
        method=body.method,
        payment_url=created.payment_url,
        amount_kopeks=created.amount_kopeks,
        extra={
            "payment_id": created.payment_id,
            "local_payment_id": int(created.payment_id),
            "status": created.status,
            "expires_at": created.expires_at.isoformat() if created.expires_at else None,
        },
    )


async def _find(session: AsyncSession, user: User, query: MiniAppPaymentStatusQuery) -> Payment | None:
    """The user's payment the query names: its local id, else the provider's id of it."""
    mine = select(Payment).where(
        col(Payment.user_id) == user.id,
        or_(col(Payment.provider) == query.method, col(Payment.method) == query.method),
    )
    if query.localPaymentId is not None:
        return (await session.exec(mine.where(col(Payment.id) == query.localPaymentId))).first()
    ids = [i for i in (query.paymentId, query.invoiceId, query.paymentLinkId, query.payload) if i]
    if not ids:
        return None
    return (await session.exec(mine.where(col(Payment.provider_payment_id).in_(ids)))).first()


def _result(query: MiniAppPaymentStatusQuery, payment: Payment | None) -> MiniAppPaymentStatusResult:
    if payment is None:
        return MiniAppPaymentStatusResult(method=query.method, status="unknown", message="Payment not found")
    return MiniAppPaymentStatusResult(
        method=query.method,
        status=payment.status,
        is_paid=payment.status == SUCCEEDED,
        amount_kopeks=payment.amount_kopeks,
        currency=payment.currency,
        completed_at=payment.paid_at.isoformat() if payment.paid_at else None,
        transaction_id=payment.transaction_id,
        external_id=payment.provider_payment_id,
        extra={"local_payment_id": payment.id},
    )


@router.post("/miniapp/payments/status", public=True, responses=auth.USER_RESPONSES)
async def get_payment_statuses(
    request: Request, session: AsyncSession, body: MiniAppPaymentStatusRequest
) -> MiniAppPaymentStatusResponse:
    """The status of each payment asked (at most 50), as recorded here: only the user's own
    are found (by our id, else the provider's); another's or an unknown one is `unknown`."""
    user = await auth.user_of(request.app, session, body.initData, "text")
    return MiniAppPaymentStatusResponse(
        results=[_result(query, await _find(session, user, query)) for query in body.payments]
    )
