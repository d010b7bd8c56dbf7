"""The one core middleware (pure ASGI, cheap): request id, access log, body-size limit, and
the last line of error handling — nothing escapes as a bare 500 without a logged id."""

from __future__ import annotations

import itertools
import logging
import re
import secrets
import time
from collections.abc import Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from subsvc.api.errors import DB_UNAVAILABLE, DomainErrors, error_response
from subsvc.db import is_database_unavailable

log = logging.getLogger("subsvc.errors")
access = logging.getLogger("subsvc.access")
_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_ID_PREFIX = secrets.token_hex(8)  # per process: ids are unique across instances too
_ID_COUNTER = itertools.count(1)


class BodyTooLarge(Exception):
    pass


class CoreMiddleware:
    """Wraps every HTTP request of the app."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        plugins: Any,
        errors: DomainErrors,
        larger_bodies: Sequence[tuple[BaseRoute, int]] = (),
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        # the routes of endpoints that accept larger bodies, with their limits
        self.larger_bodies = list(larger_bodies)
        self.plugins = plugins
        self.errors = errors

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id, declared = _read_headers(scope)
        scope.setdefault("state", {})["request_id"] = request_id
        header = (b"x-request-id", request_id.encode())
        status = 500
        response_started = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                message["headers"] = [*message.get("headers", []), header]
            await send(message)

        limit = self._limit(scope)
        if declared is not None and declared > limit:
            await self._too_large(scope, receive, send_with_id, limit)
            return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge
            return message

        try:
            await self.app(scope, limited_receive, send_with_id)
        except BodyTooLarge:
            if not response_started:
                await self._too_large(scope, receive, send_with_id, limit)
        except Exception as exc:
            if response_started:
                log.exception("request %s failed after its response started", request_id)
                raise
            response = await self._error_response(scope, receive, exc, request_id)
            await response(scope, receive, send_with_id)
        finally:
            if access.isEnabledFor(logging.DEBUG):
                elapsed = (time.perf_counter() - started) * 1000
                access.debug(
                    "%s %s %s %.1fms id=%s", scope["method"], scope["path"], status, elapsed, request_id
                )

    def _limit(self, scope: Scope) -> int:
        """The body limit of this request: its endpoint's larger one, else ``max_body_bytes``."""
        for route, limit in self.larger_bodies:
            if route.matches(scope)[0] == Match.FULL:
                return limit
        return self.max_body_bytes

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        detail = f"Request body is larger than {limit} bytes"
        await error_response(413, detail)(scope, receive, send)

    async def _error_response(
        self, scope: Scope, receive: Receive, exc: Exception, request_id: str
    ) -> Response:
        if is_database_unavailable(exc):
            log.warning("request %s: database unavailable: %s", request_id, exc)
            return error_response(503, DB_UNAVAILABLE)
        declared = self.errors.response(exc)
        if declared is not None:
            return declared
        custom = self.plugins.hook.handle_exception(request=Request(scope, receive), exc=exc)
        if custom is not None:
            return custom  # type: ignore[no-any-return]
        log.exception("request %s failed", request_id)
        return error_response(500, "Internal Server Error")


def _read_headers(scope: Scope) -> tuple[str, int | None]:
    """One pass over the headers: the request id to use (the client's ``X-Request-ID`` when
    it is safe, else a new one) and the declared ``Content-Length``."""
    request_id: str | None = None
    length: int | None = None
    for name, value in scope["headers"]:
        if name == b"x-request-id":
            candidate: str = value.decode("latin-1")
            if _SAFE_ID.match(candidate):
                request_id = candidate
        elif name == b"content-length":
            try:
                length = int(value)
            except ValueError:
                length = None
    return request_id or f"{_ID_PREFIX}{next(_ID_COUNTER):016x}", length
