"""Internal plugin: a messenger error that escapes an endpoint is an answer, not a bare 500.

Callers that know better catch :class:`~subsvc.messenger.MessengerError` themselves (a
broadcast counts a blocked chat as failed); this is the net under the rest.
"""

from __future__ import annotations

import logging
import math

from starlette.requests import Request
from starlette.responses import Response

from subsvc.api.errors import error_response
from subsvc.hookspecs import hookimpl
from subsvc.messenger import (
    MessengerError,
    MessengerNotConfigured,
    MessengerRateLimited,
    MessengerTimeout,
    MessengerUnavailable,
)

log = logging.getLogger("subsvc.messenger")

NOT_CONFIGURED = "Messenger bot is not configured"
TIMED_OUT = "Messenger API did not answer in time"
UNAVAILABLE = "Messenger API unavailable"
REFUSED = "Messenger API refused the request"
MESSENGER_FAILURES = {
    502: f"{REFUSED}, or {UNAVAILABLE}",
    503: f"{NOT_CONFIGURED}, or its rate limit is reached (Retry-After)",
    504: TIMED_OUT,
}
"""What an endpoint whose messenger errors escape answers: spread it into its ``responses``."""


@hookimpl
def handle_exception(request: Request, exc: Exception) -> Response | None:
    if not isinstance(exc, MessengerError):
        return None
    log.warning("%s %s: messenger %s failed: %s", request.method, request.url.path, exc.method, exc)
    if isinstance(exc, MessengerNotConfigured):
        return error_response(503, NOT_CONFIGURED)
    if isinstance(exc, MessengerRateLimited):
        seconds = max(1, math.ceil(exc.retry_after))
        return error_response(
            503, f"Messenger rate limit reached, retry after {seconds} s", {"Retry-After": str(seconds)}
        )
    if isinstance(exc, MessengerTimeout):
        return error_response(504, TIMED_OUT)
    if isinstance(exc, MessengerUnavailable):
        return error_response(502, UNAVAILABLE)
    return error_response(502, f"{REFUSED}: {exc.description}")
