"""Give a tariff's live subscriptions the tariff's squads in the VPN panel.

The subscriptions touched are the tariff's with a stored status ``active`` or ``trial``. Each
is pushed through the panel gateway (a few at a time); one the panel has no account for is
skipped; after ``TARIFFS_SYNC_MAX_CONSECUTIVE_FAILURES`` failures in a row the rest are
skipped. Only the subscriptions the panel accepted get the squads in our table too (one
UPDATE at the end, so no row is locked while the panel is called).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_subscriptions.api import Subscription

from subsvc.db import utcnow
from subsvc.panel import PanelError, SquadAssignmentPanel
from subsvc_tariffs.models import Tariff
from subsvc_tariffs.service import LIVE_STATUSES

logger = logging.getLogger(__name__)
MAX_ERRORS = 20
CHUNK = 1000  # subscription ids per UPDATE


@dataclass
class SyncOutcome:
    total: int = 0
    updated: list[int] = field(default_factory=list)
    failed: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)


async def sync_squads(
    session: AsyncSession,
    panel: SquadAssignmentPanel,
    tariff: Tariff,
    *,
    concurrency: int,
    max_consecutive_failures: int,
) -> SyncOutcome:
    """Push the tariff's squads and external squad to each live subscription's panel account."""
    query = (
        select(col(Subscription.id), col(Subscription.user_id))
        .where(col(Subscription.tariff_id) == tariff.id, col(Subscription.status).in_(LIVE_STATUSES))
        .order_by(col(Subscription.id))
    )
    rows = (await session.exec(query)).all()
    targets = [(subscription_id, user_id) for subscription_id, user_id in rows if subscription_id is not None]
    outcome = SyncOutcome(total=len(targets))
    squads = list(tariff.allowed_squads)
    semaphore = asyncio.Semaphore(concurrency)
    consecutive = 0

    async def push(subscription_id: int, user_id: int) -> None:
        nonlocal consecutive
        async with semaphore:
            if consecutive >= max_consecutive_failures:
                outcome.skipped += 1
                return
            try:
                found = await panel.set_squads(user_id, subscription_id, squads, tariff.external_squad_uuid)
            except PanelError as exc:
                outcome.failed += 1
                consecutive += 1
                logger.warning("squad sync of subscription %s failed: %s", subscription_id, exc)
                _note(outcome, f"subscription {subscription_id} (user {user_id}): {exc}")
                if consecutive == max_consecutive_failures:
                    outcome.errors.append(f"Stopped after {max_consecutive_failures} consecutive failures")
                return
            consecutive = 0
            if found:
                outcome.updated.append(subscription_id)
            else:
                outcome.skipped += 1

    await asyncio.gather(*(push(subscription_id, user_id) for subscription_id, user_id in targets))
    now = utcnow()
    for start in range(0, len(outcome.updated), CHUNK):
        await session.exec(
            update(Subscription)
            .where(col(Subscription.id).in_(outcome.updated[start : start + CHUNK]))
            .values(connected_squads=squads, updated_at=now)
            .execution_options(synchronize_session=False)
        )
    return outcome


def _note(outcome: SyncOutcome, message: str) -> None:
    if len(outcome.errors) < MAX_ERRORS:
        outcome.errors.append(message[:300])
