"""Creating and finding payment records; no HTTP in here."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc_payments.models import Payment
from subsvc_payments.settings import PaymentsSettings

CURRENCY = "RUB"


class IdempotencyConflict(Exception):
    """An idempotency key the user already gave to a different payment."""


class PaymentNotFound(LookupError):
    """No payment of that provider carries that provider payment id."""


async def find_by_key(session: AsyncSession, user_id: int, idempotency_key: str) -> Payment | None:
    """The user's payment created with this idempotency key, if any."""
    query = select(Payment).where(
        col(Payment.user_id) == user_id, col(Payment.idempotency_key) == idempotency_key
    )
    return (await session.exec(query)).first()


def _same_request(payment: Payment, provider: str, method: str, amount_kopeks: int, currency: str) -> Payment:
    """The first payment of a repeated key, when the repeat asks for the same payment."""
    if (payment.provider, payment.method, payment.amount_kopeks, payment.currency) != (
        provider,
        method,
        amount_kopeks,
        currency,
    ):
        raise IdempotencyConflict("Idempotency key was already used for a different payment")
    return payment


async def create_payment(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    provider: str,
    method: str,
    amount_kopeks: int,
    idempotency_key: str | None,
    *,
    currency: str = CURRENCY,
    provider_payment_id: str | None = None,
    expires_at: datetime | None = None,
    data: dict[str, Any] | None = None,
) -> tuple[Payment, bool]:
    """A new pending payment, and ``True``; for an idempotency key the user gave before, the
    first payment and ``False`` (:class:`IdempotencyConflict` when that one asked for something
    else). Two concurrent creations with one key are settled by the unique ``(user_id,
    idempotency_key)``: the loser's insert is undone (a savepoint) and it answers the winner's.
    ``expires_at`` defaults to now + ``PAYMENTS_PENDING_TTL_MINUTES``."""
    if amount_kopeks <= 0:
        raise ValueError("a payment must be positive")
    if idempotency_key is not None:
        existing = await find_by_key(session, user_id, idempotency_key)
        if existing is not None:
            return _same_request(existing, provider, method, amount_kopeks, currency), False
    now = utcnow()
    ttl = timedelta(minutes=PaymentsSettings.of(app).PAYMENTS_PENDING_TTL_MINUTES)
    payment = Payment(
        user_id=user_id,
        provider=provider,
        method=method,
        provider_payment_id=provider_payment_id,
        amount_kopeks=amount_kopeks,
        currency=currency,
        idempotency_key=idempotency_key,
        created_at=now,
        updated_at=now,
        expires_at=expires_at or now + ttl,
        data=dict(data or {}),
    )
    try:
        async with session.begin_nested():
            session.add(payment)
            await session.flush()
    except IntegrityError:
        if idempotency_key is None:
            raise
        existing = await find_by_key(session, user_id, idempotency_key)
        if existing is None:
            raise
        return _same_request(existing, provider, method, amount_kopeks, currency), False
    return payment, True


async def attach_provider_payment(
    session: AsyncSession,
    payment_id: int,
    provider_payment_id: str,
    data: dict[str, Any] | None = None,
    *,
    expires_at: datetime | None = None,
) -> None:
    """Record the provider's id of a payment (once the provider has answered its creation),
    merge ``data`` into the payment's provider data and take the provider's ``expires_at``
    when it gives one."""
    payment = await session.get(Payment, payment_id, with_for_update=True)
    if payment is None:
        raise LookupError(f"no payment {payment_id}")
    payment.provider_payment_id = provider_payment_id
    payment.data = {**payment.data, **(data or {})}
    if expires_at is not None:
        payment.expires_at = expires_at
    payment.updated_at = utcnow()
    session.add(payment)
    await session.flush()


async def lock_payment(session: AsyncSession, provider: str, provider_payment_id: str) -> Payment:
    """The payment, its row locked until the caller's transaction ends and read as committed
    last: ``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite a touching ``UPDATE`` first, which
    takes the database's one write turn (so the read after it sees the last writer's commit).
    Raises :class:`PaymentNotFound`."""
    where = (col(Payment.provider) == provider, col(Payment.provider_payment_id) == provider_payment_id)
    payment = await _locked(session, where)
    if payment is None:
        raise PaymentNotFound(f"no {provider} payment {provider_payment_id!r}")
    return payment


async def lock_payment_id(session: AsyncSession, payment_id: int) -> Payment | None:
    """The payment with this local id, locked as :func:`lock_payment` does; ``None`` if gone."""
    return await _locked(session, (col(Payment.id) == payment_id,))


async def _locked(session: AsyncSession, where: tuple[Any, ...]) -> Payment | None:
    if session.get_bind().dialect.name != "postgresql":
        await session.exec(update(Payment).where(*where).values(provider=col(Payment.provider)))
    query = select(Payment).where(*where).with_for_update().execution_options(populate_existing=True)
    return (await session.exec(query)).first()
