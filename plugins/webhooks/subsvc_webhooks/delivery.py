"""Sending deliveries: claim what is due, POST it, record the attempt, schedule the retry.

The job ``webhooks.deliver`` (enqueued after each commit that wrote deliveries, and run
every ``WEBHOOK_POLL_SECONDS`` by every worker) calls :meth:`Deliverer.drain`. A claim moves
the due rows' ``next_retry_at`` a lease ahead (on PostgreSQL under ``FOR UPDATE SKIP
LOCKED``, so workers never claim the same row), which commits at once: no transaction is
held while a receiver answers. An attempt whose outcome was not recorded (a crash, a lost
database) is due again when its lease ends, so every delivery is sent at least once;
receivers de-duplicate with ``X-Webhook-Delivery``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import json
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx2
import sqlalchemy as sa
from sqlalchemy import bindparam
from starlette.applications import Starlette

from subsvc import __version__ as subsvc_version
from subsvc.db import Database, in_list, is_database_unavailable, utcnow
from subsvc_webhooks.models import FAILED, PENDING, SUCCESS, Webhook, WebhookDelivery
from subsvc_webhooks.safety import TargetRefused, transport
from subsvc_webhooks.settings import WebhookSettings

log = logging.getLogger("subsvc.webhooks")
BODY_READ_LIMIT = 64 * 1024
RESPONSE_BODY_CHARS = 1000
ERROR_BODY_CHARS = 500
CONNECT_SECONDS = 5.0
LEASE_MARGIN_SECONDS = 60.0
USER_AGENT = f"subsvc-webhooks/{subsvc_version}"

_deliveries: sa.Table = WebhookDelivery.__table__  # type: ignore[attr-defined]
_webhooks: sa.Table = Webhook.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Claimed:
    """A due delivery taken by this worker, with where to send it."""

    id: int
    webhook_id: int
    event_id: int | None
    event_type: str
    payload: dict[str, Any]
    attempt_number: int
    delivery_key: str
    url: str
    secret: str | None


@dataclass(frozen=True)
class Outcome:
    """What one attempt gave."""

    delivery: Claimed
    at: datetime
    success: bool
    response_status: int | None = None
    response_body: str | None = None
    error_message: str | None = None
    retryable: bool = True


def body_of(payload: dict[str, Any]) -> bytes:
    """The request body: the payload object as JSON, non-ASCII kept (as the reference sends it)."""
    return json.dumps(payload, ensure_ascii=False, default=str).encode()


def signature(secret: str, body: bytes) -> str:
    """``sha256=<hex HMAC-SHA256(secret, body)>``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def retry_delay(settings: WebhookSettings, attempt_number: int) -> float:
    """Seconds before attempt ``attempt_number + 1``: exponential, capped, with jitter."""
    base = settings.WEBHOOK_RETRY_BASE_SECONDS * settings.WEBHOOK_RETRY_FACTOR ** (attempt_number - 1)
    delay = min(base, settings.WEBHOOK_RETRY_MAX_SECONDS)
    jitter = settings.WEBHOOK_RETRY_JITTER
    return delay * random.uniform(1 - jitter, 1 + jitter) if jitter else delay  # noqa: S311 - not crypto


def blocks_private_targets(app: Starlette) -> bool:
    """``WEBHOOK_BLOCK_PRIVATE_TARGETS``, or by default: on outside development and test."""
    setting = app.state.settings_of["webhooks"].WEBHOOK_BLOCK_PRIVATE_TARGETS
    if setting is not None:
        return bool(setting)
    return app.state.settings.ENVIRONMENT not in ("development", "test")


def _truncate(text: str, limit: int, marker: str = "") -> str:
    return text if len(text) <= limit else text[:limit] + marker


@functools.cache
def _statements(dialect: str) -> dict[str, Any]:
    """Every statement of the delivery loop, built once per dialect."""
    d, w = _deliveries, _webhooks
    due = (
        sa.select(d.c.id)
        .join(w, w.c.id == d.c.webhook_id)
        .where(d.c.status == PENDING, d.c.next_retry_at <= bindparam("now"), w.c.is_active.is_(True))
        .order_by(d.c.next_retry_at, d.c.id)
        .limit(bindparam("limit"))
    )
    if dialect == "postgresql":
        due = due.with_for_update(of=d, skip_locked=True)
    claim = (
        sa.update(d)
        .where(d.c.id.in_(due.scalar_subquery()))
        .values(next_retry_at=bindparam("lease_until"))
        .returning(
            d.c.id,
            d.c.webhook_id,
            d.c.event_id,
            d.c.event_type,
            d.c.payload,
            d.c.attempt_number,
            d.c.delivery_key,
        )
    )
    targets = sa.select(w.c.id, w.c.url, w.c.secret).where(in_list(w.c.id, "ids", dialect))
    record = (
        sa.update(d)
        .where(d.c.id == bindparam("delivery_id"), d.c.status == PENDING)
        .values(
            status=bindparam("status"),
            response_status=bindparam("response_status"),
            response_body=bindparam("response_body"),
            error_message=bindparam("error_message"),
            delivered_at=bindparam("delivered_at"),
            next_retry_at=bindparam("retry_at"),
        )
    )
    # The next attempt, unless the webhook was deleted meanwhile (then nothing is written).
    retry_rows = sa.select(
        w.c.id,
        bindparam("event_id", type_=sa.Integer),
        bindparam("delivery_key", type_=sa.String),
        bindparam("event_type", type_=sa.String),
        bindparam("payload", type_=sa.JSON),
        sa.literal(PENDING, sa.String),
        bindparam("attempt_number", type_=sa.Integer),
        bindparam("created_at", type_=d.c.created_at.type),
        bindparam("retry_at", type_=d.c.next_retry_at.type),
    ).where(w.c.id == bindparam("webhook_id"))
    retry = sa.insert(d).from_select(
        [
            "webhook_id",
            "event_id",
            "delivery_key",
            "event_type",
            "payload",
            "status",
            "attempt_number",
            "created_at",
            "next_retry_at",
        ],
        retry_rows,
    )
    counters = {
        "success_count": w.c.success_count + bindparam("successes"),
        "failure_count": w.c.failure_count + bindparam("failures"),
        "last_triggered_at": bindparam("now"),
    }
    ended_well = sa.update(w).where(w.c.id == bindparam("webhook_id")).values(**counters, failing_since=None)
    ended_badly = (
        sa.update(w)
        .where(w.c.id == bindparam("webhook_id"))
        .values(**counters, failing_since=sa.func.coalesce(w.c.failing_since, bindparam("failed_at")))
    )
    deactivate = (
        sa.update(w)
        .where(
            w.c.id == bindparam("webhook_id"),
            w.c.is_active.is_(True),
            w.c.failing_since <= bindparam("cutoff"),
        )
        .values(is_active=False, deactivated_at=bindparam("now"), deactivation_reason=bindparam("reason"))
    )
    release = sa.update(d).where(in_list(d.c.id, "ids", dialect), d.c.status == PENDING)
    release = release.values(next_retry_at=bindparam("now"))
    return {
        "claim": claim,
        "targets": targets,
        "record": record,
        "retry": retry,
        "ended_well": ended_well,
        "ended_badly": ended_badly,
        "deactivate": deactivate,
        "release": release,
    }


class Deliverer:
    """The delivery loop of one app: at most ``WEBHOOK_CONCURRENCY`` attempts in flight,
    outcomes recorded in batches."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.db: Database = app.state.db
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
        settings: WebhookSettings = self.app.state.settings_of["webhooks"]
        return settings

    def _client(self) -> httpx2.AsyncClient:
        if self.client is None:
            timeout = self.settings.WEBHOOK_TIMEOUT_SECONDS
            limits = httpx2.Limits(max_connections=self.settings.WEBHOOK_CONCURRENCY)
            self.client = httpx2.AsyncClient(
                transport=transport(limits, guarded=blocks_private_targets(self.app)),
                timeout=httpx2.Timeout(timeout, connect=min(CONNECT_SECONDS, timeout)),
                follow_redirects=False,
                trust_env=False,
                headers={"User-Agent": USER_AGENT},
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
        while not self._stopping and not self.app.state.jobs.stopping:
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
        statements = _statements(self.db.dialect)
        now = utcnow()
        lease = timedelta(seconds=self.settings.WEBHOOK_TIMEOUT_SECONDS + LEASE_MARGIN_SECONDS)
        async with self.db.session() as session:
            rows = (
                await session.exec(
                    statements["claim"], params={"now": now, "limit": limit, "lease_until": now + lease}
                )
            ).all()
            if not rows:
                await session.commit()
                return []
            ids = sorted({row.webhook_id for row in rows})
            targets = {
                t.id: t for t in (await session.exec(statements["targets"], params={"ids": ids})).all()
            }
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
        outcome = await self.send(delivery)
        self._outcomes.append(outcome)
        if self._recorder is None or self._recorder.done():
            self._recorder = asyncio.create_task(self._record_all())

    async def send(self, delivery: Claimed) -> Outcome:
        """POST the delivery; never raises (a failure is an outcome)."""
        body = body_of(delivery.payload)
        headers = {
            "Content-Type": "application/json",
            "X-Webhook-Event": delivery.event_type,
            "X-Webhook-Id": str(delivery.webhook_id),
            "X-Webhook-Delivery": delivery.delivery_key,
            "X-Webhook-Timestamp": str(int(time.time())),
        }
        if delivery.secret:
            headers["X-Webhook-Signature"] = signature(delivery.secret, body)

        def failed(message: str, *, retryable: bool = True, **fields: Any) -> Outcome:
            return Outcome(delivery, utcnow(), False, error_message=message, retryable=retryable, **fields)

        try:
            async with asyncio.timeout(self.settings.WEBHOOK_TIMEOUT_SECONDS):
                async with self._client().stream(
                    "POST", delivery.url, content=body, headers=headers
                ) as response:
                    raw = bytearray()
                    async for chunk in response.aiter_bytes():
                        raw += chunk
                        if len(raw) >= BODY_READ_LIMIT:
                            break
        except (TimeoutError, httpx2.TimeoutException):
            return failed("Request timeout")
        except TargetRefused as exc:
            return failed(str(exc), retryable=False)
        except httpx2.HTTPError as exc:
            return failed(str(exc) or type(exc).__name__)
        except Exception as exc:  # a bad URL, a TLS library error: recorded, never raised
            log.warning("webhook %s: delivery %s failed", delivery.webhook_id, delivery.id, exc_info=True)
            return failed(str(exc) or type(exc).__name__)
        text = bytes(raw).decode("utf-8", "replace")
        shown = _truncate(text, RESPONSE_BODY_CHARS, "... (truncated)")
        if 200 <= response.status_code < 300:
            return Outcome(
                delivery, utcnow(), True, response_status=response.status_code, response_body=shown
            )
        error = f"HTTP {response.status_code}: {text[:ERROR_BODY_CHARS]}"
        return failed(error, response_status=response.status_code, response_body=shown)

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
        """Write the attempts, the next attempts, the counters and any deactivation at once."""
        settings = self.settings
        statements = _statements(self.db.dialect)
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
                if (await session.exec(statements["record"], params=params)).rowcount == 0:  # type: ignore[attr-defined]
                    continue  # recorded by another worker (lease ended) or deleted with its webhook
                if retry_at is not None:
                    await session.exec(
                        statements["retry"],
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
            for webhook_id, results in per_webhook.items():
                await self._count(session, webhook_id, results, now)
            await session.commit()
        for delay in retries:
            self._wake_in(delay)

    async def _count(self, session: Any, webhook_id: int, results: list[Outcome], now: datetime) -> None:
        statements = _statements(self.db.dialect)
        successes = sum(1 for r in results if r.success)
        params: dict[str, Any] = {
            "webhook_id": webhook_id,
            "successes": successes,
            "failures": len(results) - successes,
            "now": now,
        }
        last = max(results, key=lambda r: r.at)
        if last.success:
            await session.exec(statements["ended_well"], params=params)
            return
        first_failure = min(r.at for r in results if not r.success)
        await session.exec(statements["ended_badly"], params={**params, "failed_at": first_failure})
        after = self.settings.WEBHOOK_DEACTIVATE_AFTER_SECONDS
        if after > 0:
            reason = (
                f"Every delivery attempt failed for more than {_duration(after)} "
                f"(WEBHOOK_DEACTIVATE_AFTER_SECONDS); last error: {last.error_message}"
            )
            deactivated = await session.exec(
                statements["deactivate"],
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
                self.app.state.jobs.spawn(self.drain())

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
                    _statements(self.db.dialect)["release"], params={"ids": ids, "now": utcnow()}
                )
                await session.commit()


def _duration(seconds: float) -> str:
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{int(seconds // 3600)} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{int(seconds // 60)} min"
    return f"{seconds:g} s"
