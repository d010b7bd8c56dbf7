"""Form bodies: ``multipart/form-data`` (files and text fields) and
``application/x-www-form-urlencoded`` (text fields), parsed with python-multipart (through
Starlette's form parser).

A handler declares its form fields as inputs marked :class:`~subsvc.api.params.Form` (text,
validated like query values) and :class:`~subsvc.api.params.File` (an :class:`UploadedFile`);
a parameter typed :class:`UploadedFile` is a file without a marker. They are validated
together, with the rules every input obeys, errors located in ``body`` like a JSON body's
(a missing field: ``{"type": "missing", "loc": ["body", "file"], "input": null}``), and a body
that is not a well-formed form is a 422 too. The body-size limit (``MAX_BODY_BYTES``, or the
endpoint's larger ``max_body_bytes`` for an upload; 413) covers the whole form: a file is read
into memory, never larger than that limit.

OpenAPI shows the fields as one schema ``Body_<operation id>``, under ``multipart/form-data``
when a field is a file (``{"type": "string", "format": "binary"}``), else
``application/x-www-form-urlencoded``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request

MULTIPART = "multipart/form-data"
URLENCODED = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class UploadedFile:
    """A file of a ``multipart/form-data`` body: its name and media type as the client sent
    them (either may be ``None``), and its content."""

    filename: str | None
    content_type: str | None
    data: bytes

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_plain_validator_function(_a_file)

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "format": "binary"}


def _a_file(value: Any) -> UploadedFile:
    if isinstance(value, UploadedFile):
        return value
    raise PydanticCustomError("file_type", "Input should be a file")


class FormInvalid(Exception):
    """A body that is not the form it says it is (malformed multipart, too many parts)."""


def holds_file(annotation: Any) -> bool:
    """Whether an input's type is (or contains) :class:`UploadedFile`."""
    if annotation is UploadedFile:
        return True
    return any(holds_file(arg) for arg in getattr(annotation, "__args__", ()))


async def read_form(request: Request, fields: Iterable[tuple[str, bool]]) -> dict[str, Any]:
    """The declared ``(wire name, is_list)`` fields of the request's form, files read into
    :class:`UploadedFile`; raises :class:`FormInvalid`. A body of another media type is an
    empty form (its fields are then missing)."""
    try:
        form = await request.form()
    except HTTPException as exc:  # Starlette's answer to a malformed form
        raise FormInvalid(str(exc.detail)) from None
    try:
        return {name: await _values(form, name, many) for name, many in fields if name in form}
    finally:
        await form.close()


async def _values(form: FormData, name: str, many: bool) -> Any:
    values = [await _value(item) for item in form.getlist(name)]
    return values if many else values[-1]


async def _value(item: str | UploadFile) -> str | UploadedFile:
    if isinstance(item, str):
        return item
    content_type = item.headers.get("content-type")
    return UploadedFile(item.filename, content_type, await item.read())


def form_invalid(message: str) -> dict[str, Any]:
    """The 422 item of a body that is not a well-formed form."""
    return {
        "type": "form_invalid",
        "loc": ["body"],
        "msg": "Form decode error",
        "input": None,
        "ctx": {"error": message},
    }
