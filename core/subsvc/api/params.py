"""Markers that say where an endpoint parameter comes from.

Used as ``Annotated[int, Query(ge=1, le=200)]``; the keyword arguments are pydantic
``Field`` constraints. Without a marker: a name in the path template is a path parameter,
a pydantic model is the body, an :class:`~subsvc.api.forms.UploadedFile` a form's file,
anything else is a query parameter.

``Annotated[Filters, Query()]`` on a dataclass declares a group of query parameters: each field
is one (its annotation may carry ``Query(...)`` constraints, its default is the parameter's), in
order; the handler receives a ``Filters``. Handlers that share the parameters share the group.
"""

from __future__ import annotations

from typing import Any, Literal

Location = Literal["path", "query", "header", "body", "form"]


class Param:
    """Where a parameter lives, its wire name (``alias``) and its pydantic constraints."""

    location: Location = "query"

    def __init__(self, *, alias: str | None = None, **constraints: Any) -> None:
        self.alias = alias
        self.constraints = constraints


class Path(Param):
    location = "path"


class Query(Param):
    location = "query"


class Header(Param):
    """A request header; the wire name defaults to the parameter name with `-` for `_`."""

    location = "header"


class Body(Param):
    """The JSON body (only needed when the body type is not a pydantic model)."""

    location = "body"


class Form(Param):
    """A text field of a form body (``multipart/form-data`` or
    ``application/x-www-form-urlencoded``; see :mod:`subsvc.api.forms`)."""

    location = "form"


class File(Form):
    """A file of a ``multipart/form-data`` body, typed :class:`~subsvc.api.forms.UploadedFile`."""
