"""One delivery attempt over HTTP: the body, the headers, the signature, the outcome."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx2

from subsvc import __version__ as subsvc_version
from subsvc.db import utcnow
from subsvc_webhooks.safety import TargetRefused, transport

log = logging.getLogger("subsvc.webhooks")
BODY_READ_LIMIT = 64 * 1024
RESPONSE_BODY_CHARS = 1000
ERROR_BODY_CHARS = 500
CONNECT_SECONDS = 5.0
USER_AGENT = f"subsvc-webhooks/{subsvc_version}"


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


def headers_for(delivery: Claimed, body: bytes) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "X-Webhook-Event": delivery.event_type,
        "X-Webhook-Id": str(delivery.webhook_id),
        "X-Webhook-Delivery": delivery.delivery_key,
        "X-Webhook-Timestamp": str(int(time.time())),
    }
    if delivery.secret:
        headers["X-Webhook-Signature"] = signature(delivery.secret, body)
    return headers


def new_client(*, concurrency: int, timeout: float, guarded: bool) -> httpx2.AsyncClient:
    """The client every attempt of a process goes through (no redirects, no proxies from the
    environment; ``guarded``: connections to non-public addresses are refused)."""
    limits = httpx2.Limits(max_connections=concurrency)
    return httpx2.AsyncClient(
        transport=transport(limits, guarded=guarded),
        timeout=httpx2.Timeout(timeout, connect=min(CONNECT_SECONDS, timeout)),
        follow_redirects=False,
        trust_env=False,
        headers={"User-Agent": USER_AGENT},
    )


def _truncate(text: str, limit: int, marker: str = "") -> str:
    return text if len(text) <= limit else text[:limit] + marker


async def send(client: httpx2.AsyncClient, delivery: Claimed, seconds: float) -> Outcome:
    """POST the delivery within ``seconds`` in all; never raises (a failure is an
    outcome: non-2xx, timeout, refused connection, refused target)."""
    body = body_of(delivery.payload)

    def failed(message: str, *, retryable: bool = True, **fields: Any) -> Outcome:
        return Outcome(delivery, utcnow(), False, error_message=message, retryable=retryable, **fields)

    try:
        async with asyncio.timeout(seconds):
            request = client.stream("POST", delivery.url, content=body, headers=headers_for(delivery, body))
            async with request as response:
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
    status = response.status_code
    if 200 <= status < 300:
        return Outcome(delivery, utcnow(), True, response_status=status, response_body=shown)
    return failed(f"HTTP {status}: {text[:ERROR_BODY_CHARS]}", response_status=status, response_body=shown)
