"""``POST /cabinet/balance/stars-invoice`` (tag Cabinet Balance): a Stars invoice link for a
top-up, its amount normalised to whole stars."""

from __future__ import annotations

from decimal import Decimal

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_payments.api import IdempotencyKey, offered_to, open_payment

from subsvc.api import HTTPError, Router
from subsvc.auth.principal import Principal
from subsvc_pay_stars.invoices import kopeks_for, stars_for
from subsvc_pay_stars.provider import NAME, StarsProvider
from subsvc_pay_stars.schemas import StarsInvoiceRequest, StarsInvoiceResponse
from subsvc_pay_stars.settings import configured

balance = Router(area="cabinet", tag="Cabinet Balance")
NOT_ENABLED = "Messenger Stars payments are not enabled"


def _rubles(kopeks: int) -> str:
    return f"{Decimal(kopeks) / 100:,.2f}"


@balance.post(
    "/cabinet/balance/stars-invoice",
    responses={
        400: f"{NOT_ENABLED} (or the method is disabled or not offered to this user by the "
        "administrators), or the amount outside the limits (`Minimum amount is 1.00 RUB`, "
        "`Maximum amount is 10,000.00 RUB` by default)",
        409: "The Idempotency-Key was used for another payment, or its first request is still running",
        502: "The messenger did not make the invoice (down or refusing): the payment is left `failed`",
    },
)
async def create_stars_invoice(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: StarsInvoiceRequest,
    idempotency_key: IdempotencyKey = None,
) -> StarsInvoiceResponse:
    """A messenger Stars invoice link for a balance top-up, to pay in the messenger (e.g. from
    its mini app). The amount becomes `max(1, round(rubles / STARS_RATE_RUB))` stars (half up)
    and is normalised to what they are worth, `round(stars × rate × 100)` kopeks: the payment's
    amount, answered as `amount_kopeks` and credited once the bot reports it paid."""
    settings = configured(request.app)
    method = await offered_to(request.app, session, principal.id, NAME) if settings else None
    if settings is None or method is None:  # not configured, or not offered to this user
        raise HTTPError(400, NOT_ENABLED)
    low, high = method.limits  # the administrators' limits, else the settings'
    if payload.amount_kopeks < low:
        raise HTTPError(400, f"Minimum amount is {_rubles(low)} RUB")
    if payload.amount_kopeks > high:
        raise HTTPError(400, f"Maximum amount is {_rubles(high)} RUB")
    rate = settings.STARS_RATE_RUB
    normalized = kopeks_for(stars_for(payload.amount_kopeks, rate), rate)
    provider = StarsProvider(request.app, settings)
    payment = await open_payment(
        request.app, session, provider, principal.id, NAME, normalized, idempotency_key
    )
    return StarsInvoiceResponse(
        invoice_url=str(payment.data["payment_url"]),
        stars_amount=int(payment.data["stars"]),
        amount_kopeks=payment.amount_kopeks,
    )
