"""A user's pending payments (one indexed query) and their check at the provider: paid →
:func:`credit_paid`, ended unpaid → :func:`mark_failed`, both exactly once under the row lock."""

from __future__ import annotations

import math

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.api import HTTPError
from subsvc_payments.crediting import apply_status
from subsvc_payments.models import (
    CANCELED,
    EXPIRED,
    FAILED,
    PENDING,
    REFUSED_MISMATCH,
    SUCCEEDED,
    Payment,
)
from subsvc_payments.providers import PaymentProvider, ProviderError, offered_methods, provider_for
from subsvc_payments.schemas import ManualCheckResponse, PendingPaymentListResponse, PendingPaymentResponse
from subsvc_payments.topup import URL_KEY

PAYMENT_NOT_FOUND = "Payment not found"
NO_RECENT = "No recent payments found"
NOT_CHECKABLE = "Ручная проверка недоступна для этого платежа"
CHECKABLE = (PENDING, EXPIRED)
"""A payment checked at its provider: still pending, or expired here (paid late still credits)."""
STATUS_VIEW = {
    PENDING: ("⏳", "Ожидает оплаты"),
    SUCCEEDED: ("✅", "Оплачен"),
    FAILED: ("❌", "Ошибка оплаты"),
    EXPIRED: ("⌛", "Истёк"),
    CANCELED: ("🚫", "Отменён"),
    REFUSED_MISMATCH: ("⚠️", "Сумма оплаты не совпала"),
}


class Views:
    """Builds the answers of one request, asking each provider once."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.names: dict[str, str] | None = None
        self.providers: dict[str, PaymentProvider | None] = {}

    async def provider(self, name: str) -> PaymentProvider | None:
        if name not in self.providers:
            self.providers[name] = await provider_for(self.app, name)
        return self.providers[name]

    async def checkable(self, payment: Payment) -> bool:
        if payment.status not in CHECKABLE or payment.provider_payment_id is None:
            return False
        provider = await self.provider(payment.provider)
        return provider is not None and provider.checkable

    async def of(self, payment: Payment) -> PendingPaymentResponse:
        if self.names is None:
            self.names = {key: info.name for key, info in (await offered_methods(self.app)).items()}
        assert payment.id is not None
        emoji, text = STATUS_VIEW.get(payment.status, ("", payment.status))
        url = payment.data.get(URL_KEY)
        return PendingPaymentResponse(
            id=payment.id,
            method=payment.provider,
            method_display=self.names.get(payment.provider, payment.provider),
            identifier=payment.provider_payment_id or str(payment.id),
            amount_kopeks=payment.amount_kopeks,
            amount_rubles=payment.amount_kopeks / 100,
            status=payment.status,
            status_emoji=emoji,
            status_text=text,
            is_paid=payment.status == SUCCEEDED,
            is_checkable=await self.checkable(payment),
            created_at=payment.created_at,
            expires_at=payment.expires_at,
            payment_url=url if isinstance(url, str) else None,
            user_id=payment.user_id,
        )


async def pending_page(
    app: Starlette, session: AsyncSession, user_id: int, page: int, per_page: int
) -> PendingPaymentListResponse:
    """The user's pending payments, newest first (index ``(user_id, status, created_at)``)."""
    where = (col(Payment.user_id) == user_id, col(Payment.status) == PENDING)
    total = (await session.exec(select(func.count()).select_from(Payment).where(*where))).one()
    query = (
        select(Payment)
        .where(*where)
        .order_by(col(Payment.created_at).desc(), col(Payment.id).desc())
        .offset((page - 1) * per_page)
        .limit(per_page)
    )
    views = Views(app)
    items = [await views.of(payment) for payment in (await session.exec(query)).all()]
    pages = max(1, math.ceil(total / per_page))
    return PendingPaymentListResponse(items=items, total=total, page=page, per_page=per_page, pages=pages)


async def latest(app: Starlette, session: AsyncSession, user_id: int, method: str) -> PendingPaymentResponse:
    """The user's newest payment of ``method`` (404 when none)."""
    query = (
        select(Payment)
        .where(col(Payment.user_id) == user_id, col(Payment.provider) == method)
        .order_by(col(Payment.created_at).desc(), col(Payment.id).desc())
        .limit(1)
    )
    payment = (await session.exec(query)).first()
    if payment is None:
        raise HTTPError(404, NO_RECENT)
    return await Views(app).of(payment)


async def own_payment(session: AsyncSession, user_id: int, method: str, payment_id: int) -> Payment:
    """The user's payment ``payment_id`` of ``method``: 404 when unknown or another user's."""
    query = select(Payment).where(
        col(Payment.id) == payment_id, col(Payment.provider) == method, col(Payment.user_id) == user_id
    )
    payment = (await session.exec(query.execution_options(populate_existing=True))).first()
    if payment is None:
        raise HTTPError(404, PAYMENT_NOT_FOUND)
    return payment


async def details(
    app: Starlette, session: AsyncSession, user_id: int, method: str, payment_id: int
) -> PendingPaymentResponse:
    """One payment of the user."""
    return await Views(app).of(await own_payment(session, user_id, method, payment_id))


async def check(
    app: Starlette, session: AsyncSession, user_id: int, method: str, payment_id: int
) -> ManualCheckResponse:
    """Ask the provider for the payment's status and apply it; commits. The provider is asked
    with no transaction open; crediting locks the row, so concurrent checks credit once and
    only the one that changed the payment answers ``status_changed``."""
    views = Views(app)
    payment = await own_payment(session, user_id, method, payment_id)
    provider = await views.provider(payment.provider)
    if provider is None or not await views.checkable(payment):
        return ManualCheckResponse(success=False, message=NOT_CHECKABLE, payment=await views.of(payment))
    old_status, provider_payment_id = payment.status, payment.provider_payment_id
    assert provider_payment_id is not None
    await session.commit()
    try:
        status = await provider.fetch(provider_payment_id)
    except ProviderError as error:
        failed = f"Payment provider {provider.name} failed to report the payment: {error}"
        raise ProviderError(failed) from error
    outcome = await apply_status(app, session, payment.provider, provider_payment_id, status)
    await session.commit()
    payment = await own_payment(session, user_id, method, payment_id)
    changed = outcome is not None and outcome.changed  # by this check (a racing one may have)
    shown = STATUS_VIEW.get(payment.status, ("", payment.status))[1]
    message = f"Статус обновлён: {shown}" if changed else "Статус не изменился"
    return ManualCheckResponse(
        success=True,
        message=message,
        payment=await views.of(payment),
        status_changed=changed,
        old_status=old_status if changed else payment.status,
        new_status=payment.status,
    )
