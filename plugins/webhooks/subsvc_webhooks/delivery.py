"""Sending deliveries: claim what is due, POST it, record the attempt, schedule the retry.

The job ``webhooks.deliver`` (enqueued after each commit that wrote deliveries, and run
every ``WEBHOOK_POLL_SECONDS`` by every worker) calls :meth:`Deliverer.drain`. A claim moves
the due rows' ``next_retry_at`` a lease ahead (on PostgreSQL under ``FOR UPDATE SKIP
LOCKED``, so workers never claim the same row), which commits at once: no transaction is
held while a receiver answers. An attempt whose outcome was not recorded (a crash, a lost
database) is due again when its lease ends, so every delivery is sent at least once;
receivers de-duplicate with ``X-Webhook-Delivery``.

Outcomes of many deliveries are recorded together, so one must never cost the others theirs:
a receiver's answer is made storable first (:func:`storable_outcome`: a NUL character, which
PostgreSQL's text refuses, becomes U+FFFD), and a batch the database still refuses (not for
being unreachable) is recorded outcome by outcome (:func:`subsvc.db.write_batch`). An outcome
refused alone is recorded without the receiver's answer; only if that is refused too is it
left unrecorded (logged), due again when its lease ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import httpx2
from starlette.applications import Starlette

from subsvc.backoff import Backoff
from subsvc.db import Database, is_database_unavailable, storable, unstored, utcnow, write_batch
from subsvc.jobs import Job
from subsvc.services import services
from subsvc_webhooks.attempts import Claimed, Outcome, new_client, send
from subsvc_webhooks.models import FAILED, SUCCESS
from subsvc_webhooks.service import DELIVER_JOB
from subsvc_webhooks.settings import WebhookSettings
from subsvc_webhooks.statements import statements

log = logging.getLogger("subsvc.webhooks")
LEASE_MARGIN_SECONDS = 60.0


def storable_outcome(outcome: Outcome) -> Outcome:
    """The outcome with the receiver's words storable in any database (no NUL character)."""
    body, error = storable(outcome.response_body), storable(outcome.error_message)
    if body == outcome.response_body and error == outcome.error_message:
        return outcome
    return dataclasses.replace(outcome, response_body=body, error_message=error)


def without_answer(outcome: Outcome, reason: str) -> Outcome:
    """The outcome without what the receiver answered (which the database refused)."""
    note = unstored("the receiver's answer", reason)
    error = note if outcome.error_message is None else f"{storable(outcome.error_message, 200)}; {note}"
    return dataclasses.replace(outcome, response_status=None, response_body=None, error_message=error)


def retry_delay(settings: WebhookSettings, attempt_number: int) -> float:
    """Seconds before attempt ``attempt_number + 1``: exponential, capped, with jitter."""
    backoff = Backoff(
        settings.WEBHOOK_RETRY_BASE_SECONDS,
        settings.WEBHOOK_RETRY_FACTOR,
        settings.WEBHOOK_RETRY_MAX_SECONDS,
        settings.WEBHOOK_RETRY_JITTER,
    )
    return backoff.seconds(attempt_number)


def blocks_private_targets(app: Starlette) -> bool:
    """``WEBHOOK_BLOCK_PRIVATE_TARGETS``, or by default: on outside development and test."""
    setting = WebhookSettings.of(app).WEBHOOK_BLOCK_PRIVATE_TARGETS
    if setting is not None:
        return bool(setting)
    return services(app).settings.ENVIRONMENT not in ("development", "test")


class Deliverer:
    """The delivery loop of one app: at most ``WEBHOOK_CONCURRENCY`` attempts in flight,
    outcomes recorded in batches."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.db: Database = services(app).db
        self.client: httpx2.AsyncClient | None = None
        self._draining = False
        self._again = False
        self._stopping = False
        self._wake = asyncio.Event()
        self._inflight: dict[asyncio.Task[None], Claimed] = {}
        self._outcomes: list[Outcome] = []
        self._recorder: asyncio.Task[None] | None = None
        self._timers: set[asyncio.TimerHandle] = set()

    @property
    def settings(self) -> WebhookSettings:
        return WebhookSettings.of(self.app)

    def _client(self) -> httpx2.AsyncClient:
        if self.client is None:
            self.client = new_client(
                concurrency=self.settings.WEBHOOK_CONCURRENCY,
                timeout=self.settings.WEBHOOK_TIMEOUT_SECONDS,
                guarded=blocks_private_targets(self.app),
            )
        return self.client

    # --- the loop ------------------------------------------------------------------------

    async def drain(self) -> None:
        """Send everything due now (and what becomes due while sending); one drain at a time
        per process: a call during one makes it look again."""
        if self._draining:
            self._again = True
            self._wake.set()
            return
        self._draining = True
        try:
            await self._drain()
        finally:
            self._draining = False

    async def _drain(self) -> None:
        limit = self.settings.WEBHOOK_CONCURRENCY
        look = True
        while not self._stopping and not services(self.app).jobs.stopping:
            if look and len(self._inflight) < limit:
                self._again = False
                free = limit - len(self._inflight)
                claimed = await self._claim(free)
                for delivery in claimed:
                    task = asyncio.create_task(self._attempt(delivery))
                    self._inflight[task] = delivery
                    task.add_done_callback(self._attempt_done)
                look = len(claimed) == free
                continue
            if not self._inflight and not look and not self._again:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=0.2)
            self._wake.clear()
            look = look or self._again

    def _attempt_done(self, task: asyncio.Task[None]) -> None:
        self._inflight.pop(task, None)
        self._wake.set()

    async def _claim(self, limit: int) -> list[Claimed]:
        queries = statements(self.db.dialect)
        now = utcnow()
        lease = timedelta(seconds=self.settings.WEBHOOK_TIMEOUT_SECONDS + LEASE_MARGIN_SECONDS)
        async with self.db.session() as session:
            rows = (
                await session.exec(
                    queries["claim"], params={"now": now, "limit": limit, "lease_until": now + lease}
                )
            ).all()
            if not rows:
                await session.commit()
                return []
            ids = sorted({row.webhook_id for row in rows})
            targets = {t.id: t for t in (await session.exec(queries["targets"], params={"ids": ids})).all()}
            await session.commit()
        return [
            Claimed(
                row.id,
                row.webhook_id,
                row.event_id,
                row.event_type,
                row.payload,
                row.attempt_number,
                row.delivery_key,
                targets[row.webhook_id].url,
                targets[row.webhook_id].secret,
            )
            for row in sorted(rows, key=lambda r: r.id)
            if row.webhook_id in targets
        ]

    # --- one attempt ---------------------------------------------------------------------

    async def _attempt(self, delivery: Claimed) -> None:
        outcome = await send(self._client(), delivery, self.settings.WEBHOOK_TIMEOUT_SECONDS)
        self._outcomes.append(outcome)
        if self._recorder is None or self._recorder.done():
            self._recorder = asyncio.create_task(self._record_all())

    # --- recording -----------------------------------------------------------------------

    async def _record_all(self) -> None:
        while self._outcomes:
            batch, self._outcomes = self._outcomes, []
            try:
                await self.record(batch)
            except Exception as exc:
                # Not recorded: the deliveries are due again when their lease ends.
                if is_database_unavailable(exc):
                    log.warning("could not record %d webhook deliveries: database unavailable", len(batch))
                else:
                    log.exception("could not record %d webhook deliveries", len(batch))

    async def record(self, outcomes: Sequence[Outcome]) -> None:
        """Write the attempts, the next attempts, the counters and any deactivation at once;
        a batch the database refuses is recorded outcome by outcome (see the module's doc).
        Raises when the database is unreachable (nothing of the batch left to record then is
        recorded: due again when the leases end)."""
        batch = [storable_outcome(outcome) for outcome in outcomes]
        await write_batch(
            self._record,
            batch,
            stand_in=without_answer,
            describe=lambda o: f"webhook {o.delivery.webhook_id}: the attempt of delivery {o.delivery.id}",
            what="webhook delivery outcomes",
            logger=log,
        )

    async def _record(self, outcomes: Sequence[Outcome]) -> None:
        """Write these outcomes in one transaction."""
        settings = self.settings
        queries = statements(self.db.dialect)
        now = utcnow()
        per_webhook: dict[int, list[Outcome]] = {}
        retries: list[float] = []
        async with self.db.session() as session:
            for outcome in outcomes:
                item = outcome.delivery
                more = outcome.retryable and item.attempt_number < settings.WEBHOOK_MAX_ATTEMPTS
                retry_at = None
                error = outcome.error_message
                if not outcome.success and more:
                    delay = retry_delay(settings, item.attempt_number)
                    retry_at = outcome.at + timedelta(seconds=delay)
                elif not outcome.success:
                    error = f"{error} (gave up after attempt {item.attempt_number})"
                params = {
                    "delivery_id": item.id,
                    "status": SUCCESS if outcome.success else FAILED,
                    "response_status": outcome.response_status,
                    "response_body": outcome.response_body,
                    "error_message": error,
                    "delivered_at": outcome.at if outcome.success else None,
                    "retry_at": retry_at,
                }
                if (await session.exec(queries["record"], params=params)).rowcount == 0:
                    continue  # recorded by another worker (lease ended) or deleted with its webhook
                if retry_at is not None:
                    await session.exec(
                        queries["retry"],
                        params={
                            "webhook_id": item.webhook_id,
                            "event_id": item.event_id,
                            "delivery_key": item.delivery_key,
                            "event_type": item.event_type,
                            "payload": item.payload,
                            "attempt_number": item.attempt_number + 1,
                            "created_at": outcome.at,
                            "retry_at": retry_at,
                        },
                    )
                    retries.append((retry_at - now).total_seconds())
                per_webhook.setdefault(item.webhook_id, []).append(outcome)
            for webhook_id, results in sorted(per_webhook.items()):  # one lock order everywhere
                await self._count(session, webhook_id, results, now)
            await session.commit()
        for delay in retries:
            self._wake_in(delay)

    async def _count(self, session: Any, webhook_id: int, results: list[Outcome], now: datetime) -> None:
        queries = statements(self.db.dialect)
        successes = sum(1 for r in results if r.success)
        params: dict[str, Any] = {
            "webhook_id": webhook_id,
            "successes": successes,
            "failures": len(results) - successes,
            "now": now,
        }
        last = max(results, key=lambda r: r.at)
        if last.success:
            await session.exec(queries["ended_well"], params=params)
            return
        first_failure = min(r.at for r in results if not r.success)
        await session.exec(queries["ended_badly"], params={**params, "failed_at": first_failure})
        after = self.settings.WEBHOOK_DEACTIVATE_AFTER_SECONDS
        if after > 0:
            reason = (
                f"Every delivery attempt failed for more than {_duration(after)} "
                f"(WEBHOOK_DEACTIVATE_AFTER_SECONDS); last error: {last.error_message}"
            )
            deactivated = await session.exec(
                queries["deactivate"],
                params={
                    "webhook_id": webhook_id,
                    "cutoff": now - timedelta(seconds=after),
                    "now": now,
                    "reason": reason,
                },
            )
            if deactivated.rowcount:
                log.warning("webhook %s deactivated: %s", webhook_id, reason)

    def _wake_in(self, delay: float) -> None:
        """Look again when a retry is due, if that is sooner than the next poll."""
        if delay >= self.settings.WEBHOOK_POLL_SECONDS or self._stopping:
            return
        loop = asyncio.get_running_loop()

        def kick() -> None:
            self._timers.discard(handle)
            if not self._stopping:
                services(self.app).jobs.spawn(self.drain())

        handle = loop.call_later(max(delay, 0.0) + 0.001, kick)
        self._timers.add(handle)

    # --- stopping ------------------------------------------------------------------------

    async def stop(self) -> None:
        """Finish the attempts in flight (up to the timeout), give back the others' claims,
        record what was sent, close the client."""
        self._stopping = True
        self._wake.set()
        for handle in self._timers:
            handle.cancel()
        self._timers.clear()
        inflight = dict(self._inflight)
        if inflight:
            _, late = await asyncio.wait(inflight, timeout=self.settings.WEBHOOK_TIMEOUT_SECONDS + 1)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late, timeout=1)
                await self._release([inflight[task].id for task in late])
        if self._recorder is not None:
            await asyncio.wait([self._recorder], timeout=5)
        if self._outcomes:
            await self._record_all()
        if self.client is not None:
            await self.client.aclose()

    async def _release(self, ids: list[int]) -> None:
        with contextlib.suppress(Exception):
            async with self.db.session() as session:
                await session.exec(
                    statements(self.db.dialect)["release"], params={"ids": ids, "now": utcnow()}
                )
                await session.commit()


def _duration(seconds: float) -> str:
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{int(seconds // 3600)} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{int(seconds // 60)} min"
    return f"{seconds:g} s"


def deliverer(app: Starlette) -> Deliverer:
    """The app's :class:`Deliverer` (made at start)."""
    found: Deliverer = app.state.webhook_deliverer
    return found


async def deliver(app: Starlette) -> None:
    """The job: send every delivery that is due."""
    await deliverer(app).drain()


def _poll_seconds(app: Starlette) -> float:
    return WebhookSettings.of(app).WEBHOOK_POLL_SECONDS


DELIVER = Job(DELIVER_JOB, deliver, every=_poll_seconds)
