"""The plugin's background job: pending payments past their ``expires_at`` become ``expired``
(in batches, each its own transaction). A payment paid later is still credited, once, and
flagged late (:func:`~subsvc_payments.crediting.credit_paid`)."""

from __future__ import annotations

import logging

from sqlmodel import col, select
from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc.jobs import Job
from subsvc.services import services
from subsvc_payments.crediting import fail_payment
from subsvc_payments.models import EXPIRED, PENDING, Payment
from subsvc_payments.settings import PaymentsSettings

EXPIRE_JOB = "payments.expire_pending"
EXPIRE_BATCH = 200
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


def _interval(app: Starlette) -> float | None:
    return PaymentsSettings.of(app).PAYMENTS_EXPIRE_INTERVAL_SECONDS or None


JOBS = [Job(EXPIRE_JOB, expire_pending, every=_interval)]
