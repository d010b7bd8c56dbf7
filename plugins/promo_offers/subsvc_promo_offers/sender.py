"""The background work of the plugin (core jobs, :mod:`subsvc.jobs`).

``promo_offers.send_broadcast(broadcast_id)`` sends a broadcast's pending messages through the
messenger client, a batch at a time (the leased loop of :mod:`subsvc.leases`), saving each
batch's outcome and the counters in the database. It first takes the broadcast's lease (one
sender per broadcast across instances); a sender that dies leaves the lease to run out, and
the upkeep job starts another, which resumes with the messages still pending (those of the
interrupted batch may go twice).

One outcome never costs the others theirs (an unsaved batch would be sent again): the
messenger's error is made storable (a NUL character, which PostgreSQL's text refuses, becomes
U+FFFD), and outcomes the database still refuses together are saved one by one
(:func:`subsvc.db.write_batch`), one refused alone without the messenger's words.

``promo_offers.upkeep`` (periodic): resumes broadcasts nobody is sending, ends test server
access that ran out, makes sure the default templates exist, deactivates expired offers.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Sequence
from datetime import timedelta
from functools import partial
from typing import Any

from sqlalchemy import bindparam, func, update
from sqlmodel import select
from starlette.applications import Starlette

from subsvc.db import storable, utcnow
from subsvc.jobs import Job
from subsvc.leases import Batches, each_limited, lease_take, resume_unleased, save_outcomes, send_batches
from subsvc.messenger import Delivery, InlineButton, Messenger
from subsvc.services import services
from subsvc_promo_offers import server_access, templates
from subsvc_promo_offers.broadcast import SEND_JOB
from subsvc_promo_offers.settings import PromoOffersSettings
from subsvc_promo_offers.tables import BROADCASTS, OFFERS, RECIPIENTS

log = logging.getLogger("subsvc.promo_offers")
UPKEEP_JOB = "promo_offers.upkeep"
UNFINISHED = ("queued", "running")
CLOSE_BUTTON = InlineButton("❌ Закрыть", callback_data="promo_offer_close")
ERROR_CHARS = 255


def _settings(app: Starlette) -> PromoOffersSettings:
    settings = PromoOffersSettings.of(app)
    return settings


def claim_keyboard(button_text: str, offer_id: int) -> list[list[InlineButton]]:
    """The claim button (its callback names the offer) and a close button."""
    return [[InlineButton(button_text, callback_data=f"claim_discount_{offer_id}")], [CLOSE_BUTTON]]


async def _take_lease(app: Starlette, broadcast_id: int) -> tuple[str, str] | None:
    """Become the broadcast's sender if it is unfinished and nobody holds it; its text and button."""
    now = utcnow()
    lease = timedelta(seconds=_settings(app).PROMO_OFFERS_SEND_LEASE_SECONDS)
    statement = (
        lease_take(BROADCASTS, broadcast_id, UNFINISHED, now)
        .values(
            status="running",
            lease_until=now + lease,
            started_at=func.coalesce(BROADCASTS.c.started_at, now),
        )
        .returning(BROADCASTS.c.message_text, BROADCASTS.c.button_text)
    )
    async with services(app).db.session() as session:
        row = (await session.exec(statement)).first()
        await session.commit()
    return None if row is None else (row[0], row[1])


async def _pending(app: Starlette, broadcast_id: int, limit: int) -> list[Any]:
    query = (
        select(RECIPIENTS.c.id, RECIPIENTS.c.offer_id, RECIPIENTS.c.messenger_id)
        .where(RECIPIENTS.c.broadcast_id == broadcast_id, RECIPIENTS.c.state == "pending")
        .order_by(RECIPIENTS.c.id)
        .limit(limit)
    )
    async with services(app).db.session(read_only=True) as session:
        return list((await session.exec(query)).all())


async def _deliver_batch(
    messenger: Messenger, text: str, button: str, concurrency: int, batch: Sequence[Any]
) -> list[Delivery]:
    async def one(row: Any) -> Delivery:
        try:
            keyboard = claim_keyboard(button, row.offer_id)
            return await messenger.deliver(row.messenger_id, text, keyboard=keyboard)
        except Exception as exc:  # a broadcast counts a failure, it never dies of one
            log.warning("promo offer message to %s failed: %s", row.messenger_id, exc)
            return Delivery("failed", error=str(exc)[:255])

    return await each_limited(concurrency, batch, one)


_MARK = (
    update(RECIPIENTS)
    .where(RECIPIENTS.c.id == bindparam("rid"))
    .values(state=bindparam("new_state"), error=bindparam("new_error"), sent_at=bindparam("new_sent_at"))
)


async def _save_batch(
    app: Starlette, broadcast_id: int, batch: Sequence[Any], results: Sequence[Delivery]
) -> None:
    """Each message's outcome, the broadcast's counters and a renewed lease, in one transaction;
    outcomes the database refuses together are saved one by one, so one costs only itself.
    Raises when one is left unsaved (still pending: the sender stops rather than send it again)."""
    run, write = f"promo offer broadcast {broadcast_id}", partial(_save_together, app, broadcast_id)
    refused = await save_outcomes(write, batch, results, run=run, what="promo offer outcomes", logger=log)
    if any(refusal.stand_in is None for refusal in refused):
        raise RuntimeError(f"promo offer broadcast {broadcast_id}: outcomes left unsaved")


async def _save_together(app: Starlette, broadcast_id: int, items: Sequence[tuple[Any, Delivery]]) -> None:
    """These outcomes, the counters and a renewed lease, in one transaction."""
    now = utcnow()
    counts: dict[str, int] = defaultdict(int)
    marks = []
    for row, delivery in items:
        counts[delivery.status] += 1
        sent_at = now if delivery.status == "sent" else None
        error = storable(delivery.error or "", ERROR_CHARS) or None
        marks.append(
            {"rid": row.id, "new_state": delivery.status, "new_error": error, "new_sent_at": sent_at}
        )
    lease = timedelta(seconds=_settings(app).PROMO_OFFERS_SEND_LEASE_SECONDS)
    counters = (
        update(BROADCASTS)
        .where(BROADCASTS.c.id == broadcast_id)
        .values(
            sent_count=BROADCASTS.c.sent_count + counts["sent"],
            failed_count=BROADCASTS.c.failed_count + counts["failed"] + counts["blocked"],
            blocked_count=BROADCASTS.c.blocked_count + counts["blocked"],
            lease_until=now + lease,
        )
    )
    async with services(app).db.session() as session:
        await session.exec(_MARK, params=marks)
        await session.exec(counters)
        await session.commit()


async def _finish(app: Starlette, broadcast_id: int, status: str | None) -> None:
    """Give the lease back; with ``status``, the broadcast is over."""
    values: dict[str, Any] = {"lease_until": None}
    if status is not None:
        values.update(status=status, completed_at=utcnow())
    async with services(app).db.session() as session:
        await session.exec(update(BROADCASTS).where(BROADCASTS.c.id == broadcast_id).values(values))
        await session.commit()


async def send_broadcast(app: Starlette, broadcast_id: int) -> None:
    """Send the broadcast's pending messages (the job ``promo_offers.send_broadcast``)."""
    leased = await _take_lease(app, broadcast_id)
    if leased is None:
        return
    text, button = leased
    settings = _settings(app)
    messenger: Messenger = services(app).messenger
    batches = Batches(
        claim=partial(_pending, app, broadcast_id, settings.PROMO_OFFERS_SEND_BATCH),
        deliver=partial(_deliver_batch, messenger, text, button, settings.PROMO_OFFERS_SEND_CONCURRENCY),
        record=partial(_save_batch, app, broadcast_id),
        finish=lambda done: _finish(app, broadcast_id, "completed" if done else None),
    )
    try:
        await send_batches(app, batches)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("promo offer broadcast %s stopped; the upkeep job will resume it", broadcast_id)


async def upkeep(app: Starlette) -> None:
    """Resume broadcasts nobody sends, end test access that ran out, make sure the default
    templates exist, deactivate expired offers (the periodic job ``promo_offers.upkeep``)."""
    now = utcnow()
    # one short transaction per step: none holds a lock while it asks for another table's
    await resume_unleased(app, BROADCASTS, UNFINISHED, SEND_JOB, "broadcast_id")
    while True:
        async with services(app).db.session() as session:
            revoked = await server_access.revoke_due(session, services(app).events, now)
            await session.commit()
        if not revoked:
            break
    async with services(app).db.session() as session:
        await templates.ensure_default_templates(session)
        await session.commit()
    async with services(app).db.session() as session:
        await session.exec(
            update(OFFERS)
            .where(OFFERS.c.is_active.is_(True), OFFERS.c.claimed_at.is_(None), OFFERS.c.expires_at <= now)
            .values(is_active=False, updated_at=now)
        )
        await session.commit()


def _upkeep_interval(app: Starlette) -> float | None:
    return _settings(app).PROMO_OFFERS_UPKEEP_SECONDS or None


async def _scheduled_upkeep(app: Starlette) -> None:
    """The periodic job: :func:`upkeep`, unless ``PROMO_OFFERS_UPKEEP_SECONDS`` is 0."""
    if _upkeep_interval(app):
        await upkeep(app)


JOBS = [Job(SEND_JOB, send_broadcast), Job(UPKEEP_JOB, _scheduled_upkeep, every=_upkeep_interval)]
