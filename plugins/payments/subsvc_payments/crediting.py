"""The crediting pipeline: a paid provider payment credits its user's balance exactly once.

Every path that learns a payment was paid (a provider's notification, a manual check, a
poll) calls :func:`credit_paid` in its own transaction. The payment's row is locked first
(:func:`~subsvc_payments.records.lock_payment`), so concurrent calls for one payment run one
after the other and the later ones find it credited. The ``deposit`` transaction carries the
provider as its payment method and the provider's payment id as its external id: billing's
unique ``(payment_method, external_id)`` is a second guard, and a transaction found there is
linked instead of a new one made. The balance, the transaction, the payment's status and the
events commit together or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing.api import DEPOSIT, Transaction, move_balance

from subsvc.api import from_attributes
from subsvc.db import utcnow
from subsvc.events import EventBus
from subsvc.services import services
from subsvc_payments.models import (
    ENDED_UNPAID,
    EXPIRED,
    PENDING,
    REFUSED_MISMATCH,
    SUCCEEDED,
    UNPAID,
    Payment,
)
from subsvc_payments.providers import ProviderError, ProviderStatus
from subsvc_payments.records import lock_payment, lock_payment_id
from subsvc_payments.schemas import BalanceToppedUp, PaymentEvent

PAYMENT_SUCCEEDED = "payment.succeeded"
PAYMENT_FAILED = "payment.failed"
BALANCE_TOPPED_UP = "balance.topped_up"
MISMATCH = "amount_mismatch"


@dataclass(frozen=True)
class Outcome:
    """A payment after a call: ``credited`` when this call credited the balance (then
    ``new_balance_kopeks`` is the balance it left), ``changed`` when it changed the payment."""

    payment_id: int
    user_id: int
    status: str
    transaction_id: int | None
    flagged_late: bool
    credited: bool = False
    changed: bool = False
    new_balance_kopeks: int | None = None


def _outcome(payment: Payment, **extra: Any) -> Outcome:
    assert payment.id is not None
    return Outcome(
        payment.id, payment.user_id, payment.status, payment.transaction_id, payment.flagged_late, **extra
    )


def _event(payment: Payment, now: datetime) -> PaymentEvent:
    """The payment as the event carries it: its fields of the same names, its id, the time."""
    return from_attributes(PaymentEvent, payment, payment_id=payment.id, occurred_at=now)


async def _linked_transaction(session: AsyncSession, provider: str, provider_payment_id: str) -> int | None:
    """The id of a transaction already recorded for this provider payment, if any."""
    query = select(col(Transaction.id)).where(
        col(Transaction.payment_method) == provider, col(Transaction.external_id) == provider_payment_id
    )
    return (await session.exec(query)).first()


async def _credit(
    session: AsyncSession, events: EventBus, payment: Payment, provider_payment_id: str, amount: int
) -> tuple[int, int | None]:
    """Credit ``amount`` with a ``deposit`` transaction linked to the payment; returns the
    transaction's id and the new balance (``None`` when a linked transaction already existed
    and nothing was credited)."""
    linked = await _linked_transaction(session, payment.provider, provider_payment_id)
    if linked is not None:
        return linked, None
    return await move_balance(
        session,
        events,
        payment.user_id,
        amount,
        type=DEPOSIT,
        description=f"Пополнение баланса ({payment.provider}, платёж {payment.id})",
        payment_method=payment.provider,
        external_id=provider_payment_id,
        notify_user=True,
        apply_topup_bonuses=True,
    )


async def credit_paid(
    app: Starlette,
    session: AsyncSession,
    provider: str,
    provider_payment_id: str,
    paid_amount_kopeks: int,
    currency: str | None,
    raw: dict[str, Any],
) -> Outcome:
    """Credit a paid provider payment exactly once, in the caller's transaction; answers
    its :class:`Outcome`.

    The provider reports ``provider_payment_id`` paid with ``paid_amount_kopeks`` in
    ``currency`` (``None``: a provider that takes only the currency asked; ``raw``: what it
    sent, kept in the payment's data):

    - a payment already credited, or already refused, answers as it is (nothing changes);
    - a paid amount or currency other than asked is refused: status ``refused_mismatch``,
      the reported amount and the reason recorded, ``payment.failed`` published, no credit;
    - otherwise the paid amount is credited once (a ``deposit``), the payment becomes
      ``succeeded`` with its transaction id and ``paid_at``, flagged late when paid after it
      expired, and ``payment.succeeded`` and ``balance.topped_up`` are published.

    Raises :class:`~subsvc_payments.records.PaymentNotFound` for an unknown payment.
    """
    payment = await lock_payment(session, provider, provider_payment_id)
    if payment.transaction_id is not None or payment.status not in UNPAID:
        return _outcome(payment)
    events = services(app).events
    now = utcnow()
    currency = currency or payment.currency
    payment.data = {**payment.data, "paid_notification": raw}
    payment.paid_amount_kopeks = paid_amount_kopeks
    payment.updated_at = now
    if paid_amount_kopeks != payment.amount_kopeks or currency != payment.currency:
        payment.status = REFUSED_MISMATCH
        asked = f"{payment.amount_kopeks} {payment.currency}"
        payment.failure_reason = f"{MISMATCH}: paid {paid_amount_kopeks} {currency}, asked {asked}"
        session.add(payment)
        await session.flush()
        events.publish(session, PAYMENT_FAILED, _event(payment, now))
        return _outcome(payment, changed=True)
    late = payment.status == EXPIRED or (payment.expires_at is not None and payment.expires_at < now)
    transaction_id, balance = await _credit(session, events, payment, provider_payment_id, paid_amount_kopeks)
    payment.status = SUCCEEDED
    payment.transaction_id = transaction_id
    payment.paid_at = now
    payment.flagged_late = late
    payment.failure_reason = None
    session.add(payment)
    await session.flush()
    events.publish(session, PAYMENT_SUCCEEDED, _event(payment, now))
    if balance is not None:
        topped_up = from_attributes(
            BalanceToppedUp,
            payment,  # its user, provider, transaction and lateness
            payment_id=payment.id,
            amount_kopeks=paid_amount_kopeks,
            new_balance_kopeks=balance,
            occurred_at=now,
        )
        events.publish(session, BALANCE_TOPPED_UP, topped_up)
    return _outcome(payment, credited=balance is not None, changed=True, new_balance_kopeks=balance)


async def mark_failed(
    app: Starlette,
    session: AsyncSession,
    provider: str,
    provider_payment_id: str,
    status: str,
    reason: str | None = None,
    raw: dict[str, Any] | None = None,
) -> Outcome:
    """The provider reports the payment ended unpaid (``status``: ``failed``, ``canceled`` or
    ``expired``). A ``pending`` payment, or one expired here, takes that status and ``reason``
    and ``payment.failed`` is published; any other answers as it is (a credited payment stays
    credited). Raises :class:`~subsvc_payments.records.PaymentNotFound`."""
    if status not in ENDED_UNPAID:
        raise ValueError(f"not a status of an unpaid end: {status!r}")
    payment = await lock_payment(session, provider, provider_payment_id)
    return await _end_unpaid(app, session, payment, status, reason, raw)


async def apply_status(
    app: Starlette, session: AsyncSession, provider: str, provider_payment_id: str, status: ProviderStatus
) -> Outcome | None:
    """Apply what the provider reports of a payment, in the caller's transaction: ``paid``
    credits it (:func:`credit_paid`), an unpaid end marks it (:func:`mark_failed`), ``pending``
    changes nothing (``None``). Raises :class:`~subsvc_payments.records.PaymentNotFound`
    for an unknown payment, :class:`ProviderError` for a paid report without an amount."""
    raw = dict(status.raw)
    if status.state == "paid":
        if status.paid_amount_kopeks is None:
            raise ProviderError(f"Payment provider {provider} reported a payment paid without an amount")
        paid = status.paid_amount_kopeks
        return await credit_paid(app, session, provider, provider_payment_id, paid, status.currency, raw)
    if status.state in ENDED_UNPAID:
        return await mark_failed(
            app, session, provider, provider_payment_id, status.state, status.reason, raw
        )
    return None


async def fail_payment(
    app: Starlette, session: AsyncSession, payment_id: int, status: str, reason: str | None = None
) -> Outcome | None:
    """:func:`mark_failed` by the local id, for a payment the provider may not know (its
    creation failed, or it expired here): ``None`` when there is no such payment."""
    if status not in ENDED_UNPAID:
        raise ValueError(f"not a status of an unpaid end: {status!r}")
    payment = await lock_payment_id(session, payment_id)
    if payment is None:
        return None
    return await _end_unpaid(app, session, payment, status, reason, None)


async def _end_unpaid(
    app: Starlette,
    session: AsyncSession,
    payment: Payment,
    status: str,
    reason: str | None,
    raw: dict[str, Any] | None,
) -> Outcome:
    """A locked pending (or expired) payment takes ``status``; any other answers as it is."""
    if payment.status not in (PENDING, EXPIRED) or payment.status == status or payment.transaction_id:
        return _outcome(payment)
    now = utcnow()
    payment.status = status
    payment.failure_reason = reason
    payment.updated_at = now
    if raw is not None:
        payment.data = {**payment.data, "failed_notification": raw}
    session.add(payment)
    await session.flush()
    services(app).events.publish(session, PAYMENT_FAILED, _event(payment, now))
    return _outcome(payment, changed=True)
