"""A user's pending payments (one indexed query) and their check at the provider: paid →
:func:`credit_paid`, ended unpaid → :func:`mark_failed`, both exactly once under the row lock.
The administrators' check (:func:`run_check` without a user) is the same."""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.api import HTTPError, from_attributes
from subsvc.db import page_of
from subsvc_payments.crediting import apply_status
from subsvc_payments.methods import all_methods
from subsvc_payments.models import (
    CANCELED,
    EXPIRED,
    FAILED,
    PENDING,
    REFUSED_MISMATCH,
    SUCCEEDED,
    Payment,
)
from subsvc_payments.providers import PaymentProvider, ProviderError, provider_for
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
    """Builds the answers of one request, asking each provider once; a method's name is its
    display name (the administrators' override, else the provider's)."""

    def __init__(self, app: Starlette, session: AsyncSession) -> None:
        self.app = app
        self.session = session
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
            methods = await all_methods(self.app, self.session, with_groups=False)
            self.names = {method.id: method.name for method in methods}
        emoji, text = STATUS_VIEW.get(payment.status, ("", payment.status))
        url = payment.data.get(URL_KEY)
        return from_attributes(
            PendingPaymentResponse,
            payment,  # its id, amount, status, times and user
            method=payment.provider,  # the method as the cabinet names it: the provider
            method_display=self.names.get(payment.provider, payment.provider),
            identifier=payment.provider_payment_id or str(payment.id),
            amount_rubles=payment.amount_kopeks / 100,
            status_emoji=emoji,
            status_text=text,
            is_paid=payment.status == SUCCEEDED,
            is_checkable=await self.checkable(payment),
            payment_url=url if isinstance(url, str) else None,
        )


async def pending_page(
    app: Starlette, session: AsyncSession, user_id: int, page: int, per_page: int
) -> PendingPaymentListResponse:
    """The user's pending payments, newest first (index ``(user_id, status, created_at)``)."""
    where = (col(Payment.user_id) == user_id, col(Payment.status) == PENDING)
    order = (col(Payment.created_at).desc(), col(Payment.id).desc())
    payments, total = await page_of(session, Payment, where, order, (page - 1) * per_page, per_page)
    views = Views(app, session)
    items = [await views.of(payment) for payment in payments]
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
    return await Views(app, session).of(payment)


async def own_payment(session: AsyncSession, user_id: int | None, method: str, payment_id: int) -> Payment:
    """The user's payment ``payment_id`` of ``method`` (any user's for ``None``): 404 when
    unknown or another user's."""
    query = select(Payment).where(col(Payment.id) == payment_id, col(Payment.provider) == method)
    if user_id is not None:
        query = query.where(col(Payment.user_id) == user_id)
    payment = (await session.exec(query.execution_options(populate_existing=True))).first()
    if payment is None:
        raise HTTPError(404, PAYMENT_NOT_FOUND)
    return payment


async def details(
    app: Starlette, session: AsyncSession, user_id: int, method: str, payment_id: int
) -> PendingPaymentResponse:
    """One payment of the user."""
    return await Views(app, session).of(await own_payment(session, user_id, method, payment_id))


@dataclass(frozen=True)
class Checked:
    """What a check did: the payment as it is after it, and the answer's fields."""

    payment: Payment
    success: bool
    message: str
    status_changed: bool = False
    old_status: str | None = None
    new_status: str | None = None

    def fields(self) -> dict[str, object]:
        """The answer's fields but the payment."""
        return {
            "success": self.success,
            "message": self.message,
            "status_changed": self.status_changed,
            "old_status": self.old_status,
            "new_status": self.new_status,
        }


async def run_check(
    app: Starlette, session: AsyncSession, user_id: int | None, method: str, payment_id: int
) -> Checked:
    """Ask the provider for the status of the payment (the user's, or any for ``None``) and
    apply it; commits. The provider is asked with no transaction open; crediting locks the
    row, so concurrent checks credit once and only the one that changed the payment answers
    ``status_changed``."""
    views = Views(app, session)
    payment = await own_payment(session, user_id, method, payment_id)
    provider = await views.provider(payment.provider)
    if provider is None or not await views.checkable(payment):
        return Checked(payment, success=False, message=NOT_CHECKABLE)
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
    old = old_status if changed else payment.status
    return Checked(payment, True, message, changed, old, payment.status)


async def check(
    app: Starlette, session: AsyncSession, user_id: int, method: str, payment_id: int
) -> ManualCheckResponse:
    """The user's check of one of their payments (:func:`run_check`)."""
    checked = await run_check(app, session, user_id, method, payment_id)
    return ManualCheckResponse(**checked.fields(), payment=await Views(app, session).of(checked.payment))
