"""The cabinet's top-up: a payment row first (idempotent by the client's key), then the
provider's creation outside any lock, then its id and URL attached. A provider failure
leaves the payment ``failed`` with the reason and answers 502."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.api import HTTPError, from_attributes
from subsvc_payments.crediting import fail_payment
from subsvc_payments.methods import Method, offered_to
from subsvc_payments.models import FAILED, PENDING, Payment
from subsvc_payments.providers import PaymentProvider, ProviderError, ProviderPaymentRequest, provider_for
from subsvc_payments.records import attach_provider_payment, create_payment
from subsvc_payments.schemas import TopUpRequest, TopUpResponse
from subsvc_payments.settings import PaymentsSettings

INVALID_METHOD = "Invalid or unavailable payment method"
URL_KEY = "payment_url"


class TopUpInProgress(Exception):
    """The first request with this idempotency key is still waiting for its provider."""


def _rubles(kopeks: int) -> str:
    return f"{kopeks / 100:.2f}"


async def _chosen(
    app: Starlette, session: AsyncSession, user_id: int, request: TopUpRequest
) -> tuple[Method, PaymentProvider]:
    """The method as the user's list offers it and its provider, the option one left on and
    the amount within the method's limits (400 otherwise)."""
    method = await offered_to(app, session, user_id, request.payment_method)
    provider = None if method is None else await provider_for(app, request.payment_method)
    if method is None or provider is None:
        raise HTTPError(400, INVALID_METHOD)
    options = [str(option.get("id")) for option in method.options or ()]
    if request.payment_option is not None and request.payment_option not in options:
        raise HTTPError(400, f"Invalid payment option: {request.payment_option}")
    low, high = method.limits
    if request.amount_kopeks < low:
        raise HTTPError(400, f"Minimum amount is {_rubles(low)} RUB")
    if request.amount_kopeks > high:
        raise HTTPError(400, f"Maximum amount is {_rubles(high)} RUB")
    return method, provider


def _return_url(app: Starlette, method: str) -> str | None:
    base = PaymentsSettings.of(app).PAYMENTS_RETURN_URL
    return f"{base}?method={method}" if base else None


def _answer(payment: Payment) -> TopUpResponse:
    """The top-up answer of a payment the provider has created."""
    return from_attributes(
        TopUpResponse,
        payment,
        payment_id=str(payment.id),
        payment_url=str(payment.data[URL_KEY]),
        amount_rubles=payment.amount_kopeks / 100,
    )


def _repeated(payment: Payment) -> Payment:
    """A repeated idempotency key: the first payment, or its failure again."""
    if URL_KEY in payment.data:
        return payment
    if payment.status == PENDING:
        raise TopUpInProgress("A top-up with this Idempotency-Key is still being created; retry shortly")
    raise ProviderError(f"Payment {payment.id} is {payment.status}: {payment.failure_reason}")


async def create_topup(
    app: Starlette, session: AsyncSession, user_id: int, request: TopUpRequest, idempotency_key: str | None
) -> TopUpResponse:
    """Create (or, for a repeated key, answer) the user's top-up payment; commits."""
    _, provider = await _chosen(app, session, user_id, request)
    payment = await open_payment(
        app,
        session,
        provider,
        user_id,
        request.payment_method,
        request.amount_kopeks,
        idempotency_key,
        option=request.payment_option,
    )
    return _answer(payment)


async def open_payment(
    app: Starlette,
    session: AsyncSession,
    provider: PaymentProvider,
    user_id: int,
    method: str,
    amount_kopeks: int,
    idempotency_key: str | None,
    *,
    option: str | None = None,
    data: dict[str, Any] | None = None,
    return_url: str | None = None,
) -> Payment:
    """A payment of ``amount_kopeks`` RUB created at ``provider`` for the cabinet's method id
    ``method`` (and ``option``): the row committed first, the provider asked with no
    transaction open, its id and URL attached (``data["payment_url"]``) and committed. For an
    idempotency key the user gave before, the first payment (its failure raised again, or
    :class:`TopUpInProgress` while it waits for its provider). A provider that fails leaves the
    payment ``failed`` and raises :class:`ProviderError` (answered 502). Commits.

    A plugin paying for something of its own gives ``data`` (kept in the payment's data, e.g.
    ``{"purpose": ..., ...}``, read back when ``balance.topped_up`` reports it) and the
    ``return_url`` the payer comes back to (default: the top-up's)."""
    payment, created = await create_payment(
        app, session, user_id, provider.name, option or method, amount_kopeks, idempotency_key, data=data
    )
    await session.commit()
    if not created:
        return _repeated(payment)
    assert payment.id is not None
    asked = ProviderPaymentRequest(
        payment_id=payment.id,
        user_id=user_id,
        method=method,
        option=option,
        amount_kopeks=payment.amount_kopeks,
        currency=payment.currency,
        description=f"Пополнение баланса на {_rubles(payment.amount_kopeks)} ₽",
        return_url=return_url or _return_url(app, method),
        idempotence_key=f"subsvc-payment-{payment.id}",
    )
    try:
        created_at_provider = await provider.create(asked)
    except ProviderError as error:
        reason = f"provider_error: {error}"[:255]
        await fail_payment(app, session, payment.id, FAILED, reason)
        await session.commit()
        failed = f"Payment provider {provider.name} failed to create the payment: {error}"
        raise ProviderError(failed) from error
    await attach_provider_payment(
        session,
        payment.id,
        created_at_provider.provider_payment_id,
        {**created_at_provider.data, URL_KEY: created_at_provider.payment_url},
        expires_at=created_at_provider.expires_at,
    )
    await session.commit()
    return payment
