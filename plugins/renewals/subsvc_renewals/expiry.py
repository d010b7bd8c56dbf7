"""The expiry job: subscriptions whose end has come are marked ``expired`` (the
subscriptions plugin's conditional UPDATE: each once, whatever the workers), each with a
``subscription.expired`` event."""

from __future__ import annotations

import logging
from datetime import datetime

import subsvc_subscriptions.api as subscriptions
from starlette.applications import Starlette

from subsvc.api import from_attributes
from subsvc.db import utcnow
from subsvc.services import services
from subsvc_renewals.schemas import SubscriptionExpired

EXPIRE_JOB = "renewals.expire"
EXPIRED_EVENT = "subscription.expired"
BATCH = 500
log = logging.getLogger("subsvc.renewals")


async def expire_due(app: Starlette, *, now: datetime | None = None) -> int:
    """Mark every stored active or trial subscription whose end is at or before ``now``
    expired, in batches (a transaction each); answers how many."""
    total = 0
    while True:
        at = now or utcnow()
        async with services(app).db.session() as session:
            rows = await subscriptions.mark_expired(session, now=at, limit=BATCH)
            for row in rows:
                payload = from_attributes(SubscriptionExpired, row, occurred_at=at)
                services(app).events.publish(session, EXPIRED_EVENT, payload)
            await session.commit()
        total += len(rows)
        if len(rows) < BATCH:
            break
    if total:
        log.info("marked %d subscriptions expired", total)
    return total


async def expire_subscriptions(app: Starlette) -> None:
    """Marks the subscriptions whose end has come `expired` (`subscription.expired` each),
    every `EXPIRY_INTERVAL_SECONDS`."""
    await expire_due(app)
