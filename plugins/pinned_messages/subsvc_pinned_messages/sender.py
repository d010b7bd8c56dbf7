"""The background work of the plugin (core jobs, :mod:`subsvc.jobs`).

``pinned_messages.send_run(run_id)`` works through a run's pending recipients a batch at a
time through the messenger client: a broadcast unpins the chat's earlier pins (setting
``PINNED_MESSAGES_UNPIN_BEFORE_PIN``), sends the message silently and pins it; an unpin
unpins every message of the chat. Exactly once, as far as the database can know:

- the sender holds the run's lease, and every batch renews it only if it still holds it (the
  lease's end is its fencing token), so one sender works on a run at a time;
- a batch's recipients are marked ``sending`` (committed) before the first call, and their
  outcomes saved after; a recipient left ``sending`` by a sender that died is marked
  ``unknown`` by the next one and never tried again — nobody gets the message twice;
- one outcome never costs the others theirs: the messenger's error is made storable (a NUL
  character, which PostgreSQL's text refuses, becomes U+FFFD), and outcomes the database still
  refuses together are saved one by one (:func:`subsvc.db.write_batch`), one refused alone
  without the messenger's words;
- when the app stops, recipients not yet started go back to ``pending`` and the lease is
  given back, so the next process (its upkeep runs at start) resumes at once.

``pinned_messages.upkeep`` (periodic, and once at start): resumes runs nobody is sending.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy import bindparam, func, update
from sqlmodel import select as select_rows
from starlette.applications import Starlette

from subsvc.db import in_list, storable, utcnow
from subsvc.jobs import Job
from subsvc.leases import Batches, each_limited, lease_take, resume_unleased, save_outcomes, send_batches
from subsvc.messenger import Media, Messenger, MessengerBlocked, MessengerError
from subsvc.services import services
from subsvc_pinned_messages.models import DELIVERIES, RUNS, UNPIN, PinnedMessageRun
from subsvc_pinned_messages.runs import FINISHED_EVENT, SEND_JOB, UNFINISHED, finished_event
from subsvc_pinned_messages.settings import PinnedMessagesSettings

log = logging.getLogger("subsvc.pinned_messages")
UPKEEP_JOB = "pinned_messages.upkeep"
INTERRUPTED = "interrupted during the calls: not sent again"
ERROR_CHARS = 255


@dataclass(frozen=True)
class Work:
    """What a run sends."""

    kind: str
    content: str
    media: Media | None


@dataclass
class Lease:
    """The end of this sender's lease on a run: its fencing token, renewed by every claim."""

    until: datetime


@dataclass(frozen=True)
class Outcome:
    """One recipient's result: ``sent``, ``failed``, ``blocked``, or ``pending`` (not started)."""

    state: str
    chat_message_id: int | None = None
    error: str | None = None


def _settings(app: Starlette) -> PinnedMessagesSettings:
    return PinnedMessagesSettings.of(app)


def _lease_end(app: Starlette) -> datetime:
    return utcnow() + timedelta(seconds=_settings(app).PINNED_MESSAGES_SEND_LEASE_SECONDS)


async def _take_lease(app: Starlette, run_id: int) -> tuple[Work, Lease] | None:
    """Become the run's sender if it is unfinished and nobody holds it; recipients a dead
    sender left ``sending`` become ``unknown`` (counted failed)."""
    now = utcnow()
    lease = _lease_end(app)
    take = (
        lease_take(RUNS, run_id, UNFINISHED, now)
        .values(status="running", lease_until=lease, started_at=func.coalesce(RUNS.c.started_at, now))
        .returning(RUNS.c.kind, RUNS.c.content, RUNS.c.media_type, RUNS.c.media_file_id)
    )
    async with services(app).db.session() as session:
        row = (await session.exec(take)).first()
        if row is None:
            return None
        lost = await session.exec(
            update(DELIVERIES)
            .where(DELIVERIES.c.run_id == run_id, DELIVERIES.c.state == "sending")
            .values(state="unknown", error=INTERRUPTED, done_at=now)
        )
        if lost.rowcount:
            log.warning("pinned message run %s: %s recipients were interrupted", run_id, lost.rowcount)
            await session.exec(
                update(RUNS)
                .where(RUNS.c.id == run_id)
                .values(failed_count=RUNS.c.failed_count + lost.rowcount)
            )
        await session.commit()
    kind, content, media_type, media_file_id = row
    media = Media(media_type, media_file_id) if media_type and media_file_id else None
    return Work(kind, content or "", media), Lease(lease)


async def _claim(app: Starlette, run_id: int, lease: Lease, size: int) -> list[Any] | None:
    """Renew the lease (``None`` when it is no longer ours or the run was cancelled) and mark
    the next pending recipients ``sending``."""
    renewed = _lease_end(app)
    async with services(app).db.session() as session:
        held = await session.exec(
            update(RUNS)
            .where(RUNS.c.id == run_id, RUNS.c.status == "running", RUNS.c.lease_until == lease.until)
            .values(lease_until=renewed)
            .returning(RUNS.c.id)
        )
        if held.first() is None:
            await session.commit()
            return None
        pending = select_rows(DELIVERIES.c.id).where(
            DELIVERIES.c.run_id == run_id, DELIVERIES.c.state == "pending"
        )
        page = pending.order_by(DELIVERIES.c.id).limit(size)
        ids = list((await session.exec(page)).all())
        batch: list[Any] = []
        if ids:
            claim = (
                update(DELIVERIES)
                .where(
                    in_list(DELIVERIES.c.id, "ids", services(app).db.dialect), DELIVERIES.c.state == "pending"
                )
                .values(state="sending")
                .returning(DELIVERIES.c.id, DELIVERIES.c.messenger_id)
            )
            batch = sorted((await session.exec(claim, params={"ids": ids})).all())
        await session.commit()
    lease.until = renewed
    return batch


async def _pin(messenger: Messenger, chat_id: int, work: Work, unpin_first: bool) -> Outcome:
    if unpin_first:
        try:
            await messenger.unpin_all_chat_messages(chat_id)
        except MessengerBlocked:
            raise
        except MessengerError as exc:  # nothing pinned, or an old message: send anyway
            log.info("unpinning chat %s before the pin failed: %s", chat_id, exc.description)
    if work.media is None:
        message = await messenger.send_message(
            chat_id, work.content, disable_notification=True, disable_web_page_preview=True
        )
    else:
        message = await messenger.send(chat_id, work.content, media=work.media, disable_notification=True)
    message_id = message.get("message_id") if isinstance(message, dict) else None
    if not isinstance(message_id, int):
        return Outcome("failed", error="the messenger answered no message id")
    try:
        await messenger.pin_chat_message(chat_id, message_id, disable_notification=True)
    except MessengerBlocked:
        raise
    except MessengerError as exc:
        return Outcome("failed", message_id, f"sent, not pinned: {exc.description}")
    return Outcome("sent", message_id)


async def _serve(app: Starlette, work: Work, batch: Sequence[Any]) -> list[Outcome]:
    """Every recipient of the batch, a few at a time; recipients not started when the app
    stops stay pending."""
    settings = _settings(app)
    messenger: Messenger = services(app).messenger

    async def one(row: Any) -> Outcome:
        chat_id: int = row.messenger_id
        if services(app).jobs.stopping:
            return Outcome("pending")
        try:
            if work.kind == UNPIN:
                await messenger.unpin_all_chat_messages(chat_id)
                return Outcome("sent")
            return await _pin(messenger, chat_id, work, settings.PINNED_MESSAGES_UNPIN_BEFORE_PIN)
        except MessengerBlocked as exc:
            return Outcome("blocked", error=exc.description)
        except MessengerError as exc:
            return Outcome("failed", error=exc.description)
        except Exception as exc:  # a run counts a failure, it never dies of one
            log.warning("pinned message call to chat %s failed: %s", chat_id, exc)
            return Outcome("failed", error=str(exc) or type(exc).__name__)

    return await each_limited(settings.PINNED_MESSAGES_SEND_CONCURRENCY, batch, one)


_MARK = (
    update(DELIVERIES)
    .where(DELIVERIES.c.id == bindparam("did"), DELIVERIES.c.state == "sending")
    .values(
        state=bindparam("new_state"),
        chat_message_id=bindparam("new_message_id"),
        error=bindparam("new_error"),
        done_at=bindparam("new_done_at"),
    )
)


async def _save(app: Starlette, run_id: int, batch: Sequence[Any], outcomes: Sequence[Outcome]) -> None:
    """Each recipient's outcome and the run's counters, in one transaction; outcomes the
    database refuses together are saved one by one, so one costs only itself."""
    run, write = f"pinned message run {run_id}", partial(_save_together, app, run_id)
    await save_outcomes(write, batch, outcomes, run=run, what="pinned message outcomes", logger=log)


async def _save_together(app: Starlette, run_id: int, items: Sequence[tuple[Any, Outcome]]) -> None:
    """These outcomes and the run's counters, in one transaction."""
    now = utcnow()
    counts = {"sent": 0, "failed": 0, "blocked": 0, "pending": 0}
    marks = []
    for row, outcome in items:
        counts[outcome.state] += 1
        done = None if outcome.state == "pending" else now
        marks.append(
            {
                "did": row.id,
                "new_state": outcome.state,
                "new_message_id": outcome.chat_message_id,
                "new_error": storable(outcome.error, ERROR_CHARS),
                "new_done_at": done,
            }
        )
    counters = (
        update(RUNS)
        .where(RUNS.c.id == run_id)
        .values(
            sent_count=RUNS.c.sent_count + counts["sent"],
            failed_count=RUNS.c.failed_count + counts["failed"] + counts["blocked"],
            blocked_count=RUNS.c.blocked_count + counts["blocked"],
        )
    )
    async with services(app).db.session() as session:
        await session.exec(counters)  # the run row first, as everywhere: no lock-order deadlock
        await session.exec(_MARK, params=marks)
        await session.commit()


async def _finish(app: Starlette, run_id: int, lease: datetime, completed: bool) -> None:
    """Give the lease back (if still ours); with ``completed``, the run is over."""
    values: dict[str, Any] = {"lease_until": None}
    if completed:
        values.update(status="completed", completed_at=utcnow())
    async with services(app).db.session() as session:
        result = await session.exec(
            update(RUNS).where(RUNS.c.id == run_id, RUNS.c.lease_until == lease).values(values)
        )
        if completed and result.rowcount:
            run = await session.get(PinnedMessageRun, run_id)
            if run is not None:
                services(app).events.publish(session, FINISHED_EVENT, finished_event(run))
        await session.commit()


async def send_run(app: Starlette, run_id: int) -> None:
    """Send the run's pending recipients (the job ``pinned_messages.send_run``)."""
    taken = await _take_lease(app, run_id)
    if taken is None:
        return
    work, lease = taken
    batches = Batches(
        claim=partial(_claim, app, run_id, lease, _settings(app).PINNED_MESSAGES_SEND_BATCH),
        deliver=partial(_serve, app, work),
        record=partial(_save, app, run_id),
        finish=lambda completed: _finish(app, run_id, lease.until, completed),
    )
    try:
        await send_batches(app, batches)  # a claim refused: cancelled, or another sender took over
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("pinned message run %s stopped; the upkeep job will resume it", run_id)


async def upkeep(app: Starlette) -> None:
    """Resume the runs nobody is sending (the periodic job ``pinned_messages.upkeep``)."""
    await resume_unleased(app, RUNS, UNFINISHED, SEND_JOB, "run_id")


def _upkeep_interval(app: Starlette) -> float | None:
    return _settings(app).PINNED_MESSAGES_UPKEEP_SECONDS or None


JOBS = [Job(SEND_JOB, send_run), Job(UPKEEP_JOB, upkeep, every=_upkeep_interval)]
