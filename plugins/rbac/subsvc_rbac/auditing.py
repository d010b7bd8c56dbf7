"""Writing the audit log: rows are queued in memory and inserted in batches by a background
task, in transactions of their own.

A request therefore pays no round trip for its audit row, and neither its rollback nor its
failure can lose the row. Rows wait at most ``RBAC_AUDIT_FLUSH_SECONDS`` (they are written at
shutdown too); while the database is unreachable they are kept (up to
``RBAC_AUDIT_MAX_PENDING``) and retried.

One row never costs the others theirs. Before a batch is written, what a database is known to
refuse is made storable (:func:`subsvc.db.storable_row`: NUL characters, which PostgreSQL's
text and JSON cannot hold, NaN and infinities in the details, texts longer than their
columns). A batch the database still refuses for another reason than being unreachable is
written row by row (:func:`subsvc.db.write_batch`), so only the row at fault is dropped,
counted in ``dropped`` and logged with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Table, insert
from starlette.applications import Starlette
from starlette.requests import Request

from subsvc.auth.principal import Principal
from subsvc.db import Database, is_database_unavailable, storable_row, utcnow, write_batch
from subsvc_rbac.models import AuditLogEntry
from subsvc_rbac.registry import split

log = logging.getLogger("subsvc.rbac.audit")
AUDIT_TABLE: Table = AuditLogEntry.__table__  # type: ignore[attr-defined]
Row = dict[str, Any]
RETRY_SECONDS = 1.0
STOP_SECONDS = 5.0
BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SECRET_WORDS = ("password", "secret", "token", "api_key")
MASK = "***"

try:  # the client address behind trusted proxies (TRUSTED_PROXIES), when core offers it
    from subsvc.ratelimit import client_ip as _core_client_ip
    from subsvc.ratelimit import close_rate_limiter as _close_core_helper
except ImportError:  # pragma: no cover - depends on the core version
    _core_client_ip = _close_core_helper = None  # type: ignore[assignment]


def client_ip(request: Request) -> str | None:
    """The caller's address (trusted proxies honoured where core knows them)."""
    if _core_client_ip is not None:
        with contextlib.suppress(Exception):
            found = _core_client_ip(request)
            if found:
                return str(found)
    return request.client.host if request.client else None


async def close_client_ip_helper(app: Starlette) -> None:
    """Release what core made to answer :func:`client_ip` (its rate limiter) at shutdown."""
    if _close_core_helper is not None:
        await _close_core_helper(app)


def row(
    *,
    user_id: int,
    action: str,
    status: str,
    resource_type: str | None = None,
    resource_id: str | None = None,
    details: Mapping[str, Any] | None = None,
    ip_address: str | None = None,
    user_agent: str | None = None,
    request_method: str | None = None,
    request_path: str | None = None,
) -> Row:
    """An audit row as the writer inserts it (texts clipped to their columns)."""
    values: dict[str, Any] = {
        "user_id": user_id,
        "action": action,
        "status": status,
        "resource_type": resource_type,
        "resource_id": resource_id,
        "details": dict(details) if details is not None else None,
        "ip_address": ip_address,
        "user_agent": user_agent,
        "request_method": request_method,
        "request_path": request_path,
        "created_at": utcnow(),
    }
    return storable_row(values, AUDIT_TABLE)


def mask_secrets(value: Any) -> Any:
    """The JSON value with the values of secret-looking keys (password, token...) masked."""
    if isinstance(value, dict):
        return {
            key: MASK if any(word in str(key).lower() for word in SECRET_WORDS) else mask_secrets(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [mask_secrets(item) for item in value]
    return value


async def _body_details(request: Request, max_bytes: int) -> dict[str, Any]:
    raw = await request.body()
    if not raw:
        return {}
    if len(raw) > max_bytes:
        return {"request_body_bytes": len(raw)}
    try:
        return {"request_body": mask_secrets(json.loads(raw))}
    except (ValueError, UnicodeDecodeError):
        return {"request_body_bytes": len(raw)}


async def request_row(
    request: Request,
    principal: Principal,
    permission: str,
    *,
    denied_reason: str | None = None,
    body_max_bytes: int = 16_384,
) -> dict[str, Any]:
    """The row of a permission-checked call: ``success`` with the method, path, query and
    (JSON) body in ``details``, or ``denied`` with the reason. ``body_max_bytes`` < 0: the
    body is not read."""
    details: dict[str, Any]
    if denied_reason is not None:
        details = {"reason": denied_reason}
    else:
        details = {"method": request.method, "path": request.url.path}
        if request.query_params:
            details["query_params"] = dict(request.query_params)
        if request.method in BODY_METHODS and body_max_bytes >= 0:
            details.update(await _body_details(request, body_max_bytes))
    path_params = request.path_params
    return row(
        user_id=principal.id,
        action=permission,
        status="denied" if denied_reason is not None else "success",
        resource_type=split(permission)[0],
        resource_id="/".join(str(value) for value in path_params.values()) or None,
        details=details,
        ip_address=client_ip(request),
        user_agent=request.headers.get("user-agent"),
        request_method=request.method,
        request_path=request.url.path,
    )


class AuditWriter:
    """The queue of unwritten audit rows and the task that writes them."""

    def __init__(self, db: Database, *, flush_seconds: float, batch_size: int, max_pending: int) -> None:
        self.db = db
        self.flush_seconds = flush_seconds
        self.batch_size = batch_size
        self.max_pending = max_pending
        self.pending: list[dict[str, Any]] = []
        self.dropped = 0
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None

    def add(self, values: dict[str, Any]) -> None:
        """Queue a row (see :func:`row`); it is written shortly, in a transaction of its own."""
        self.pending.append(values)
        overflow = len(self.pending) - self.max_pending
        if overflow > 0:
            del self.pending[:overflow]
            self.dropped += overflow
            log.error("audit log: %d rows dropped (the database has not taken them)", overflow)
        self._wake.set()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="subsvc-rbac-audit")

    async def _run(self) -> None:
        while not self._stopping:
            await self._wake.wait()
            if self._stopping:
                return  # stop() writes what is left
            if self.flush_seconds and len(self.pending) < self.batch_size:
                await asyncio.sleep(self.flush_seconds)  # let a batch gather
            self._wake.clear()
            try:
                await self.flush()
            except Exception:  # the database is unreachable: try again shortly
                await asyncio.sleep(RETRY_SECONDS)
                self._wake.set()

    async def flush(self) -> int:
        """Write every queued row now; returns how many were written. Raises (keeping the rows
        not written yet) when the database is unreachable, or on an error that is no refusal."""
        written = 0
        async with self._lock:
            while self.pending:
                queued = self.pending[: self.batch_size]
                try:
                    refused = await write_batch(self._insert, queued, what="audit rows", logger=log)
                except Exception as exc:
                    if is_database_unavailable(exc):
                        log.warning("audit log: database unavailable, %d rows kept", len(self.pending))
                    else:
                        log.exception("audit log: %d rows could not be written; kept", len(self.pending))
                    raise
                for refusal in refused:
                    values = refusal.item
                    self.dropped += 1
                    log.error(
                        "audit log: a row is dropped, the database refuses it (%s): "
                        "action %r, user %s, %s %s",
                        refusal.reason,
                        values.get("action"),
                        values.get("user_id"),
                        values.get("request_method"),
                        values.get("request_path"),
                    )
                self._done([refusal.item for refusal in refused])
                written += len(queued) - len(refused)
        return written

    async def _insert(self, rows: list[Row]) -> None:
        """Insert these queued rows (made storable) in a transaction, then take them off the queue."""
        async with self.db.engine.begin() as connection:
            await connection.execute(
                insert(AUDIT_TABLE), [storable_row(values, AUDIT_TABLE) for values in rows]
            )
        self._done(rows)

    def _done(self, rows: list[Row]) -> None:
        """Take these rows (the queued objects) off the queue: by identity, since rows may be
        queued, or the oldest dropped, while a batch is written."""
        handled = {id(values) for values in rows}
        self.pending[:] = [values for values in self.pending if id(values) not in handled]

    async def stop(self) -> None:
        """Let the task finish its pass, then write what is left (within ``STOP_SECONDS``)."""
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), timeout=STOP_SECONDS)
            except TimeoutError:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
        try:
            await asyncio.wait_for(self.flush(), timeout=STOP_SECONDS)
        except Exception:
            log.error("audit log: %d rows not written at shutdown", len(self.pending), exc_info=True)
