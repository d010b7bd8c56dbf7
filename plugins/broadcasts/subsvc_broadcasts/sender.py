"""The background work: sending a broadcast, and the upkeep that starts and resumes them.

``broadcasts.send(broadcast_id)`` first takes the broadcast's lease (one sender per broadcast
across processes). Then, batch by batch:

1. **claim**: in one transaction, check the lease and the status (a stop is noticed here),
   mark the next ``BROADCASTS_BATCH_SIZE`` pending recipients ``sending`` and renew the lease.
   The claim is committed *before* any message of the batch is sent.
2. **send** the batch through the messenger client (its rate limits, and
   ``BROADCASTS_MESSAGES_PER_SECOND`` when set).
3. **record** every outcome (``sent`` / ``blocked`` / ``failed``) and the counters in one
   transaction, publishing ``broadcast.progress`` (at most every ``BROADCASTS_PROGRESS_SECONDS``).
   The messenger's error is made storable first (a NUL character, which PostgreSQL's text
   refuses, becomes U+FFFD); outcomes the database still refuses together are recorded one by
   one (:func:`subsvc.db.write_batch`), one refused alone without the messenger's words.

A recipient therefore gets at most one message. A process that stops (shutdown) finishes and
records the batch it holds and gives the lease back, so the next process resumes at once with
the pending recipients. A process that dies between 1 and 3 leaves its batch ``sending``: whoever
takes the lease after it has run out marks those rows ``unknown`` (counted in ``failed_count``
and ``unknown_count``) and never sends them again — they may or may not have received it.

``broadcasts.upkeep`` (periodic, and once when a worker starts): starts scheduled broadcasts that
are due and asks for a sender for every unfinished broadcast whose lease is free.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Sequence
from datetime import timedelta
from functools import partial
from typing import Any

from sqlalchemy import bindparam, case, update
from sqlmodel import select
from starlette.applications import Starlette

from subsvc.db import in_list, storable, utcnow
from subsvc.jobs import Job
from subsvc.leases import Batches, each_limited, lease_take, resume_unleased, save_outcomes, send_batches
from subsvc.messenger import Delivery, Media, Messenger, RateLimiter
from subsvc.services import services
from subsvc_broadcasts import buttons
from subsvc_broadcasts.models import (
    BLOCKED,
    BROADCASTS,
    CANCELLED,
    CANCELLING,
    COMPLETED,
    FAILED,
    IN_PROGRESS,
    PENDING,
    QUEUED,
    RECIPIENTS,
    SCHEDULED,
    SENDING,
    SENT,
    UNKNOWN,
    Broadcast,
)
from subsvc_broadcasts.service import (
    SEND_JOB,
    fix_recipients,
    progress_of,
    publish_progress,
)
from subsvc_broadcasts.settings import BroadcastsSettings

log = logging.getLogger("subsvc.broadcasts")
UPKEEP_JOB = "broadcasts.upkeep"
UNFINISHED = (QUEUED, IN_PROGRESS, CANCELLING)
ERROR_CHARS = 255
COUNTERS = (
    BROADCASTS.c.id,
    BROADCASTS.c.status,
    BROADCASTS.c.total_count,
    BROADCASTS.c.sent_count,
    BROADCASTS.c.failed_count,
    BROADCASTS.c.blocked_count,
    BROADCASTS.c.unknown_count,
)


def _settings(app: Starlette) -> BroadcastsSettings:
    return BroadcastsSettings.of(app)


class SenderState:
    """This process's identity as a lease holder, its own broadcast pace, and when it last
    published each broadcast's progress."""

    def __init__(self, settings: BroadcastsSettings) -> None:
        self.owner = uuid.uuid4().hex
        per_second = settings.BROADCASTS_MESSAGES_PER_SECOND
        self.limiter = RateLimiter(per_second, 0) if per_second else None
        self.published: dict[int, float] = {}


def state_of(app: Starlette) -> SenderState:
    state: SenderState | None = getattr(app.state, "broadcasts", None)
    if state is None:
        state = app.state.broadcasts = SenderState(_settings(app))
    return state


def _lease_end(app: Starlette) -> Any:
    return utcnow() + timedelta(seconds=_settings(app).BROADCASTS_LEASE_SECONDS)


async def take_lease(app: Starlette, broadcast_id: int) -> bool:
    """Become the broadcast's sender if it is unfinished and nobody holds it. Messages a dead
    sender had claimed become ``unknown`` in the same transaction."""
    me, now = state_of(app).owner, utcnow()
    statement = lease_take(BROADCASTS, broadcast_id, UNFINISHED, now).values(
        lease_owner=me,
        lease_until=_lease_end(app),
        status=case((BROADCASTS.c.status == QUEUED, IN_PROGRESS), else_=BROADCASTS.c.status),
        started_at=case((BROADCASTS.c.started_at.is_(None), now), else_=BROADCASTS.c.started_at),
    )
    async with services(app).db.session() as session:
        if (await session.exec(statement)).rowcount != 1:
            return False
        lost = update(RECIPIENTS).where(
            RECIPIENTS.c.broadcast_id == broadcast_id, RECIPIENTS.c.state == SENDING
        )
        orphaned = (await session.exec(lost.values(state=UNKNOWN, error="sender died"))).rowcount
        if orphaned:
            log.warning(
                "broadcast %s: %s messages of a dead sender counted as unknown", broadcast_id, orphaned
            )
        counted = (
            update(BROADCASTS)
            .where(BROADCASTS.c.id == broadcast_id)
            .values(
                failed_count=BROADCASTS.c.failed_count + orphaned,
                unknown_count=BROADCASTS.c.unknown_count + orphaned,
            )
            .returning(*COUNTERS)
        )
        row = (await session.exec(counted)).one()
        publish_progress(app, session, row)
        await session.commit()
    return True


class LeaseLost(Exception):
    """Another sender holds the broadcast now."""


class Stopped(Exception):
    """The broadcast was asked to stop."""


async def claim(app: Starlette, broadcast_id: int) -> list[Any]:
    """Mark the next batch of pending recipients ``sending`` (committed before anything is
    sent) and renew the lease; raises :class:`Stopped` or :class:`LeaseLost`."""
    me, size = state_of(app).owner, _settings(app).BROADCASTS_BATCH_SIZE
    async with services(app).db.session() as session:
        dialect = session.get_bind().dialect.name
        head = select(BROADCASTS.c.status, BROADCASTS.c.lease_owner).where(BROADCASTS.c.id == broadcast_id)
        status, owner = (await session.exec(head.with_for_update())).first() or (None, None)
        if owner != me:
            raise LeaseLost
        if status == CANCELLING:
            raise Stopped
        pending = (
            select(RECIPIENTS.c.id, RECIPIENTS.c.messenger_id)
            .where(RECIPIENTS.c.broadcast_id == broadcast_id, RECIPIENTS.c.state == PENDING)
            .order_by(RECIPIENTS.c.id)
            .limit(size)
        )
        batch = list((await session.exec(pending)).all())
        if batch:
            mark = update(RECIPIENTS).where(in_list(RECIPIENTS.c.id, "ids", dialect)).values(state=SENDING)
            await session.exec(mark, params={"ids": [recipient_id for recipient_id, _ in batch]})
        await session.exec(
            update(BROADCASTS).where(BROADCASTS.c.id == broadcast_id).values(lease_until=_lease_end(app))
        )
        await session.commit()
    return batch


async def _deliver(app: Starlette, broadcast: Any, batch: Sequence[Any]) -> list[Delivery]:
    messenger: Messenger = services(app).messenger
    limiter = state_of(app).limiter
    keyboard = buttons.keyboard(broadcast.selected_buttons or [], broadcast.custom_buttons or [])
    media = Media(broadcast.media_type, broadcast.media_file_id) if broadcast.has_media else None
    text = (broadcast.media_caption or broadcast.message_text) if media else broadcast.message_text

    async def one(row: Any) -> Delivery:
        if limiter is not None:
            await limiter.acquire()
        try:
            return await messenger.deliver(row.messenger_id, text or "", media=media, keyboard=keyboard)
        except Exception as exc:  # a broadcast counts a failure, it never dies of one
            log.warning("broadcast message to %s failed: %s", row.messenger_id, exc)
            return Delivery("failed", error=str(exc)[:255])

    return await each_limited(_settings(app).BROADCASTS_SEND_CONCURRENCY, batch, one)


_MARK_ONE = (
    update(RECIPIENTS)
    .where(RECIPIENTS.c.id == bindparam("rid"), RECIPIENTS.c.state == SENDING)
    .values(state=bindparam("new_state"), error=bindparam("new_error"))
)


async def record(
    app: Starlette, broadcast_id: int, batch: Sequence[Any], results: Sequence[Delivery]
) -> None:
    """Every outcome of the batch and the counters, in one transaction; outcomes the database
    refuses together are recorded one by one, so one costs only itself (raises
    :class:`LeaseLost` when another sender took the broadcast meanwhile: what is left is then
    not written)."""
    run, write = f"broadcast {broadcast_id}", partial(_record, app, broadcast_id)
    await save_outcomes(write, batch, results, run=run, what="broadcast outcomes", logger=log)


async def _record(app: Starlette, broadcast_id: int, outcomes: Sequence[tuple[Any, Delivery]]) -> None:
    """These outcomes and the counters, in one transaction."""
    state, now = state_of(app), utcnow()
    sent = [row.id for row, d in outcomes if d.status == SENT]
    others = [
        {
            "rid": row.id,
            "new_state": d.status if d.status == BLOCKED else FAILED,
            "new_error": storable(d.error or "", ERROR_CHARS),
        }
        for row, d in outcomes
        if d.status != SENT
    ]
    blocked = sum(1 for item in others if item["new_state"] == BLOCKED)
    async with services(app).db.session() as session:
        dialect = session.get_bind().dialect.name
        counters = (
            update(BROADCASTS)
            .where(BROADCASTS.c.id == broadcast_id, BROADCASTS.c.lease_owner == state.owner)
            .values(
                sent_count=BROADCASTS.c.sent_count + len(sent),
                failed_count=BROADCASTS.c.failed_count + len(others) - blocked,
                blocked_count=BROADCASTS.c.blocked_count + blocked,
                lease_until=_lease_end(app),
            )
            .returning(*COUNTERS)
        )
        row = (await session.exec(counters)).first()
        if row is None:
            await session.rollback()
            raise LeaseLost
        if sent:
            mark = (
                update(RECIPIENTS)
                .where(in_list(RECIPIENTS.c.id, "ids", dialect), RECIPIENTS.c.state == SENDING)
                .values(state=SENT, sent_at=now)
            )
            await session.exec(mark, params={"ids": sent})
        if others:
            await session.exec(_MARK_ONE, params=others)
        every = _settings(app).BROADCASTS_PROGRESS_SECONDS
        if time.monotonic() - state.published.get(broadcast_id, float("-inf")) >= every:
            state.published[broadcast_id] = time.monotonic()
            publish_progress(app, session, row)
        await session.commit()


async def finish(app: Starlette, broadcast_id: int, *, done: bool) -> None:
    """Give the lease back; with ``done`` the broadcast is over (``completed``, or ``cancelled``
    when a stop was asked for)."""
    values: dict[str, Any] = {"lease_owner": None, "lease_until": None}
    if done:
        values["status"] = case((BROADCASTS.c.status == CANCELLING, CANCELLED), else_=COMPLETED)
        values["completed_at"] = utcnow()
    statement = (
        update(BROADCASTS)
        .where(BROADCASTS.c.id == broadcast_id, BROADCASTS.c.lease_owner == state_of(app).owner)
        .values(values)
        .returning(*COUNTERS)
    )
    async with services(app).db.session() as session:
        row = (await session.exec(statement)).first()
        if row is not None and done:
            publish_progress(app, session, row)
        await session.commit()
    state_of(app).published.pop(broadcast_id, None)


async def send_broadcast(app: Starlette, broadcast_id: int) -> None:
    """Send the broadcast's pending messages (the job ``broadcasts.send``)."""
    if not await take_lease(app, broadcast_id):
        return
    async with services(app).db.session(read_only=True) as session:
        broadcast = await session.get(Broadcast, broadcast_id)
    assert broadcast is not None
    batches = Batches(
        claim=partial(claim, app, broadcast_id),
        deliver=partial(_deliver, app, broadcast),
        record=partial(record, app, broadcast_id),
        finish=lambda done: finish(app, broadcast_id, done=done),
    )
    try:
        await send_batches(app, batches)
    except Stopped:
        await finish(app, broadcast_id, done=True)
    except LeaseLost:
        log.warning("broadcast %s: another sender took it over", broadcast_id)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("broadcast %s stopped; the upkeep job resumes it when its lease runs out", broadcast_id)


async def start_due(app: Starlette) -> list[int]:
    """Start the scheduled broadcasts whose moment has come (recipients fixed now); their ids."""
    query = select(BROADCASTS.c.id).where(BROADCASTS.c.status == SCHEDULED, BROADCASTS.c.send_at <= utcnow())
    async with services(app).db.session(read_only=True) as session:
        due = list((await session.exec(query)).all())
    started = []
    for broadcast_id in due:
        async with services(app).db.session() as session:
            claim_it = (
                update(BROADCASTS)
                .where(BROADCASTS.c.id == broadcast_id, BROADCASTS.c.status == SCHEDULED)
                .values(status=QUEUED)
            )
            if (await session.exec(claim_it)).rowcount != 1:
                continue  # another process started it
            broadcast = await session.get(Broadcast, broadcast_id)
            assert broadcast is not None
            await session.refresh(broadcast)
            await fix_recipients(app, session, broadcast)
            publish_progress(app, session, broadcast)
            await session.commit()
            started.append(broadcast_id)
    return started


async def upkeep(app: Starlette) -> None:
    """Start due scheduled broadcasts; ask for a sender for each unfinished one nobody holds."""
    await start_due(app)
    await resume_unleased(app, BROADCASTS, UNFINISHED, SEND_JOB, "broadcast_id")


def _upkeep_interval(app: Starlette) -> float | None:
    return _settings(app).BROADCASTS_UPKEEP_SECONDS or None


JOBS = [Job(SEND_JOB, send_broadcast), Job(UPKEEP_JOB, upkeep, every=_upkeep_interval)]
__all__ = ["JOBS", "progress_of"]
