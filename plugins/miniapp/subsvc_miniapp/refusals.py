"""Another plugin's refusal as the mini app's object-style body ``{code, message}``: an
object detail (it has its ``code``) is kept, a text gets the code of its status."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, TypeVar

from subsvc_renewals.api import RenewalError

from subsvc.api import HTTPError

T = TypeVar("T")

CODES = {
    400: "invalid_request",
    402: "insufficient_funds",
    403: "forbidden",
    404: "subscription_not_found",
    409: "conflict",
    429: "rate_limited",
    502: "panel_error",
    503: "unavailable",
}


def as_object(status: int, detail: Any) -> HTTPError:
    """The HTTP error answering ``detail`` with ``status`` in the object style."""
    if isinstance(detail, dict) and "code" in detail:
        return HTTPError(status, detail)
    message = detail if isinstance(detail, str) else str(detail)
    return HTTPError(status, {"code": CODES.get(status, "error"), "message": message})


async def object_style(call: Awaitable[T], refusal: type[HTTPError] | type[RenewalError] = HTTPError) -> T:
    """``call``'s answer; its ``refusal`` (another plugin's ``HTTPError`` by default, or the
    renewals plugin's ``RenewalError``) raised again in the object style."""
    try:
        return await call
    except refusal as refused:
        status = refused.status_code if isinstance(refused, HTTPError) else refused.status
        raise as_object(status, refused.detail) from None
