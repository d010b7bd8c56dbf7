"""What an operation served in several areas did, worded by each area's answer model.

The Web API's answers carry their text as ``detail``, the cabinet's as ``message``. A handler
mounted in both (:func:`subsvc.api.operation`) returns an :class:`Outcome`; each mount's
``response_model`` reads from it the fields it has (``success``, ``detail`` or ``message``,
``data``), leaving out the rest. Subclass it for further fields one area's model shows.
Where an area reads the request body with a model of its own, it mounts
:func:`with_body` of the operation.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from subsvc.api.endpoint import Operation


@dataclass(frozen=True)
class Outcome:
    """An operation's text (``None``: none), whether it succeeded, and its data."""

    text: str | None
    success: bool = True
    data: Any = None

    @property
    def detail(self) -> str | None:
        """The text, as the Web API's answers name it."""
        return self.text

    @property
    def message(self) -> str | None:
        """The text, as the cabinet's answers name it."""
        return self.text


def with_body(shared: Operation, body: type[BaseModel]) -> Operation:
    """``shared`` reading its ``payload`` as ``body``: where one area validates the request
    body by rules (or under a model name) of its own, mount this instead of ``shared``."""
    handler = shared.handler

    @functools.wraps(handler)
    async def read(**inputs: Any) -> Any:
        return await handler(**inputs)

    read.__annotations__ = {**handler.__annotations__, "payload": body}
    return Operation(shared.method, shared.path, read, shared.options)
