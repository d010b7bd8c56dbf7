"""The plugin's background jobs: pending payments past their ``expires_at`` become
``expired`` (in batches, each its own transaction); pending payments are polled at the
providers that can report their status. A payment paid later is still credited, once, and
flagged late (:func:`~subsvc_payments.crediting.credit_paid`)."""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlmodel import col, select
from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc.jobs import Job
from subsvc.services import services
from subsvc_payments.crediting import apply_status, fail_payment
from subsvc_payments.models import EXPIRED, PENDING, Payment
from subsvc_payments.providers import PaymentProvider, ProviderError, provider_for
from subsvc_payments.settings import PaymentsSettings

EXPIRE_JOB = "payments.expire_pending"
EXPIRE_BATCH = 200
POLL_JOB = "payments.poll_pending"
POLL_BATCH = 100
EXPIRED_REASON = "expired: not paid before expires_at"
log = logging.getLogger("subsvc.payments")


async def expire_due(app: Starlette) -> int:
    """Mark every pending payment past its ``expires_at`` expired (``payment.failed`` for
    each); answers how many. Each row is locked and re-read first, so a payment credited
    meanwhile stays credited (index ``(status, expires_at)``)."""
    expired = 0
    while True:
        now = utcnow()
        async with services(app).db.session() as session:
            query = (
                select(col(Payment.id))
                .where(col(Payment.status) == PENDING, col(Payment.expires_at) < now)
                .order_by(col(Payment.expires_at))
                .limit(EXPIRE_BATCH)
            )
            due = [payment_id for payment_id in (await session.exec(query)).all() if payment_id is not None]
            for payment_id in due:
                outcome = await fail_payment(app, session, payment_id, EXPIRED, EXPIRED_REASON)
                expired += outcome is not None and outcome.changed
            await session.commit()
        if len(due) < EXPIRE_BATCH:
            break
    if expired:
        log.info("expired %d pending payments", expired)
    return expired


async def expire_pending(app: Starlette) -> None:
    """Marks the pending payments past their `expires_at` expired (`payment.failed`), every
    `PAYMENTS_EXPIRE_INTERVAL_SECONDS`; a payment paid later is still credited once, flagged late."""
    await expire_due(app)


async def poll_due(app: Starlette) -> int:
    """Ask the providers about every pending payment older than
    ``PAYMENTS_POLL_AFTER_SECONDS`` whose provider is configured and ``checkable``, and apply
    what they answer (each payment in a transaction of its own, the provider asked with none
    open); answers how many changed. A provider that fails is logged and asked again next
    time. Keyset pages by id on the index ``(status, expires_at)``'s pending rows."""
    settings = PaymentsSettings.of(app)
    before = utcnow() - timedelta(seconds=settings.PAYMENTS_POLL_AFTER_SECONDS)
    providers: dict[str, PaymentProvider | None] = {}
    changed, after_id = 0, 0
    while True:
        async with services(app).db.session(read_only=True) as session:
            query = (
                select(col(Payment.id), col(Payment.provider), col(Payment.provider_payment_id))
                .where(
                    col(Payment.status) == PENDING,
                    col(Payment.provider_payment_id).is_not(None),
                    col(Payment.created_at) < before,
                    col(Payment.id) > after_id,
                )
                .order_by(col(Payment.id))
                .limit(POLL_BATCH)
            )
            due = (await session.exec(query)).all()
        for payment_id, name, provider_payment_id in due:
            after_id = payment_id or after_id
            if name not in providers:
                providers[name] = await provider_for(app, name)
            provider = providers[name]
            if provider is None or not provider.checkable or provider_payment_id is None:
                continue
            changed += await _poll_one(app, provider, provider_payment_id)
        if len(due) < POLL_BATCH:
            break
    if changed:
        log.info("polling changed %d pending payments", changed)
    return changed


async def _poll_one(app: Starlette, provider: PaymentProvider, provider_payment_id: str) -> bool:
    try:
        status = await provider.fetch(provider_payment_id)
        async with services(app).db.session() as session:
            outcome = await apply_status(app, session, provider.name, provider_payment_id, status)
            await session.commit()
    except ProviderError as error:
        log.warning("polling %s payment %s failed: %s", provider.name, provider_payment_id, error)
        return False
    return outcome is not None and outcome.changed


async def poll_pending(app: Starlette) -> None:
    """Asks the providers that can report a payment's status about the pending payments (older
    than `PAYMENTS_POLL_AFTER_SECONDS`), every `PAYMENTS_POLL_INTERVAL_SECONDS`: paid ones are
    credited once, unpaid ends marked."""
    await poll_due(app)


def _expire_interval(app: Starlette) -> float | None:
    return PaymentsSettings.of(app).PAYMENTS_EXPIRE_INTERVAL_SECONDS or None


def _poll_interval(app: Starlette) -> float | None:
    return PaymentsSettings.of(app).PAYMENTS_POLL_INTERVAL_SECONDS or None


JOBS = [
    Job(EXPIRE_JOB, expire_pending, every=_expire_interval),
    Job(POLL_JOB, poll_pending, every=_poll_interval),
]
