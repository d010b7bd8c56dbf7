"""Error bodies: `{"detail": ...}` for every error, FastAPI's shape for validation (422)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

DB_UNAVAILABLE = "Service temporarily unavailable. Please try again later."


class HTTPError(HTTPException):
    """An error with a status and a `detail` (a text, or an object such as `{code, message}`)."""

    def __init__(
        self, status_code: int, detail: Any = None, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(status_code=status_code, headers=dict(headers) if headers else None)
        if detail is not None:
            self.detail = detail


class RequestValidationError(Exception):
    """Collected input errors of one request, every location at once."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(errors)
        self.errors = errors


#: How a declared domain error answers: a status (the detail is the exception's message), a
#: status and a fixed detail, or a function of the exception giving both.
ErrorAnswer = int | tuple[int, Any] | Callable[[Any], tuple[int, Any]]


class DomainErrors:
    """Every plugin's declared domain errors (``register_errors``), looked up by the
    exception's class and its bases."""

    def __init__(self, declared: Iterable[tuple[str, Mapping[type[Exception], ErrorAnswer]]]) -> None:
        self.answers: dict[type[Exception], ErrorAnswer] = {}
        owners: dict[type[Exception], str] = {}
        for plugin, errors in declared:
            for kind, answer in errors.items():
                if kind in owners:
                    twice = f"by {owners[kind]!r} and {plugin!r}"
                    raise ValueError(f"{kind.__name__} is declared as a domain error twice ({twice})")
                owners[kind] = plugin
                self.answers[kind] = answer

    def response(self, exc: Exception) -> Response | None:
        """The declared answer to ``exc``, or ``None`` when it is not a declared error."""
        for kind in type(exc).__mro__:
            answer = self.answers.get(kind)
            if answer is None:
                continue
            if isinstance(answer, int):
                return error_response(answer, str(exc))
            status, detail = answer if isinstance(answer, tuple) else answer(exc)
            return error_response(status, detail)
        return None


def error_response(status_code: int, detail: Any, headers: Mapping[str, str] | None = None) -> Response:
    return JSONResponse(
        {"detail": detail}, status_code=status_code, headers=dict(headers) if headers else None
    )


async def http_error_handler(request: Request, exc: Exception) -> Response:
    """Starlette's HTTPException (our HTTPError, routing's 404/405) as `{"detail": ...}`."""
    assert isinstance(exc, HTTPException)
    if exc.status_code in (204, 304):
        return Response(status_code=exc.status_code, headers=exc.headers)
    return error_response(exc.status_code, exc.detail, exc.headers)


async def validation_error_handler(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    return error_response(422, exc.errors)


def _jsonable(value: Any) -> Any:
    """Make a value from a pydantic error JSON-safe the way FastAPI does (exceptions -> text)."""
    if isinstance(value, str):
        return value if value.isascii() else value.encode("utf-8", "backslashreplace").decode("utf-8")
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value


def format_errors(
    errors: Iterable[ErrorDetails], prefix: tuple[str | int, ...], *, missing_input_none: bool = False
) -> list[dict[str, Any]]:
    """pydantic errors -> FastAPI items: `{type, loc, msg, input, ctx?}` with `loc` prefixed.

    ``missing_input_none``: report `input: null` for missing fields (FastAPI does so for
    path, query and header parameters; for bodies it reports the body received).
    """
    items = []
    for error in errors:
        item: dict[str, Any] = {
            "type": error["type"],
            "loc": [*prefix, *error["loc"]],
            "msg": error["msg"],
            "input": None if missing_input_none and error["type"] == "missing" else _jsonable(error["input"]),
        }
        if "ctx" in error:
            item["ctx"] = _jsonable(error["ctx"])
        items.append(item)
    return items


def validation_errors(
    exc: ValidationError, prefix: tuple[str | int, ...], **kwargs: bool
) -> list[dict[str, Any]]:
    return format_errors(exc.errors(include_url=False), prefix, **kwargs)


def json_invalid(position: int, message: str) -> dict[str, Any]:
    """The item FastAPI reports for a body that is not JSON."""
    return {
        "type": "json_invalid",
        "loc": ["body", position],
        "msg": "JSON decode error",
        "input": {},
        "ctx": {"error": message},
    }


def body_missing() -> dict[str, Any]:
    return {"type": "missing", "loc": ["body"], "msg": "Field required", "input": None}
