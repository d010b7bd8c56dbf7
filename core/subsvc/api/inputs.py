"""Rules every input obeys, whatever its endpoint declares: applied once, at the edge.

- Integers fit the database: a bound an input does not declare is the 32-bit ``INTEGER``
  column's (ids, orders, counts, offsets). An input that maps to a ``BIGINT`` column says so
  with :data:`BigInt` (messenger ids, amounts in kopeks).
- Numbers are finite: no ``Infinity`` or ``NaN`` reaches a column or a computation.
- Free JSON values (``Any``, ``dict[str, Any]``) obey the text and number rules inside.
- Text holds no NUL character (PostgreSQL refuses it). An unpaired surrogate (no database
  can encode it) is refused by pydantic's own text validation (``string_unicode``); the 422
  body shows it escaped.
- A JSON body nests at most :data:`MAX_JSON_DEPTH` levels, checked on the raw bytes before
  anything parses it (a deep body used to exhaust the parser's recursion).

:func:`bounded` rewrites an input's pydantic core schema with these rules, so the
validation errors are the usual 422 items and the OpenAPI document shows the bounds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Annotated, Any

from pydantic import Field
from pydantic_core import CoreSchema, PydanticCustomError, SchemaValidator, core_schema

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_JSON_DEPTH = 64

BigInt = Annotated[int, Field(ge=INT64_MIN, le=INT64_MAX)]
"""An integer input stored in a ``BIGINT`` column (narrow it further with ``Field`` bounds)."""


def fits_int32(value: int) -> bool:
    """Whether ``value`` fits an ``INTEGER`` column: a larger id names nothing (and must not
    reach the driver)."""
    return INT32_MIN <= value <= INT32_MAX


def fits_int64(value: int) -> bool:
    """Whether ``value`` fits a ``BIGINT`` column."""
    return INT64_MIN <= value <= INT64_MAX


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def _without_nul(value: str) -> str:
    if "\x00" in value:
        raise PydanticCustomError("string_invalid_character", "String should not contain the NUL character")
    return value


def _storable(value: Any) -> Any:
    """A free JSON value (``Any``), checked like declared inputs: no NUL in its texts and
    keys, no infinite or NaN number (JSON columns cannot hold them)."""
    if isinstance(value, str):
        _without_nul(value)
    elif isinstance(value, float) and not math.isfinite(value):
        raise PydanticCustomError("finite_number", "Input should be a finite number")
    elif isinstance(value, dict):
        for key, item in value.items():
            _storable(key)
            _storable(item)
    elif isinstance(value, list | tuple):
        for item in value:
            _storable(item)
    return value


def _bound(node: Any) -> Any:
    """The schema tree with the rules added (a new tree; shared sub-trees are copied)."""
    if isinstance(node, list):
        return [_bound(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {
        key: (value if key in ("cls", "function", "ref") else _bound(value)) for key, value in node.items()
    }
    kind = node.get("type")
    if kind == "int":
        if "le" not in node and "lt" not in node:
            node["le"] = INT32_MAX
        if "ge" not in node and "gt" not in node:
            node["ge"] = INT32_MIN
    elif kind == "float":
        node.setdefault("allow_inf_nan", False)
    elif kind == "str":
        return core_schema.no_info_after_validator_function(_without_nul, node)
    elif kind == "any":
        return core_schema.no_info_after_validator_function(_storable, node)
    return node


def _classes(node: Any) -> Iterator[type]:
    """The model and dataclass classes a schema tree builds."""
    if isinstance(node, list):
        for item in node:
            yield from _classes(item)
    elif isinstance(node, dict):
        if node.get("type") in ("model", "dataclass"):
            yield node["cls"]
        for key, value in node.items():
            if key not in ("cls", "function"):
                yield from _classes(value)


def bounded(schema: CoreSchema) -> tuple[CoreSchema, SchemaValidator]:
    """The input schema with the rules, and its validator."""
    rewritten: CoreSchema = _bound(schema)
    # pydantic-core reuses the validator a finished class already has (its __dict__ says
    # __pydantic_complete__) for a model inside a schema; it must build ours instead.
    classes = [cls for cls in dict.fromkeys(_classes(rewritten)) if cls.__dict__.get("__pydantic_complete__")]
    try:
        for cls in classes:
            type.__setattr__(cls, "__pydantic_complete__", False)
        return rewritten, SchemaValidator(rewritten)
    finally:
        for cls in classes:
            type.__setattr__(cls, "__pydantic_complete__", True)


def too_deep(raw: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Does this JSON text nest more than ``limit`` arrays and objects? Strings are skipped;
    each pass drops the innermost empty pairs, so valid JSON is empty after ``depth`` passes.
    Malformed text is left to the parser (it reports it)."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    skeleton = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    for _ in range(limit):
        shorter = skeleton.replace(b"[]", b"").replace(b"{}", b"")
        if shorter == skeleton:
            return False
        skeleton = shorter
    return b"[]" in skeleton or b"{}" in skeleton
